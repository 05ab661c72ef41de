args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.max_batch=4096
exit: 0
