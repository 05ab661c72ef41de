args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set model.seq_len=1024 --set inference.prompt_tokens=600 --set inference.output_tokens=300
exit: 0
