args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.prefill_replicas=2
exit: 3
