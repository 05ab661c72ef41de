args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set model.seq_len=8192 --set inference.prompt_tokens=7000 --set inference.output_tokens=3000
exit: 3
