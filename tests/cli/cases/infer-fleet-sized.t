args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.replicas=auto --set inference.qps=60
exit: 0
