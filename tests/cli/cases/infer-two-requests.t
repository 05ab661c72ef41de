args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.requests=2 --format json
exit: 0
