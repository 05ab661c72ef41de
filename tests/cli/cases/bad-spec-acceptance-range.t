args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.speculative_tokens=2 --set inference.acceptance_rate=1.5
exit: 2
