args: infer examples/llama3-8b.ini --gpu A100-SXM-80GB --set inference.speculative_tokens=4 --set inference.acceptance_rate=0.7
exit: 3
