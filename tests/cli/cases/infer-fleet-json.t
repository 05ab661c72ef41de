args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --format json
exit: 0
