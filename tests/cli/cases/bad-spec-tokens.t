args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.speculative_tokens=17
exit: 2
