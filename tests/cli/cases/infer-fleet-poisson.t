args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB
exit: 0
