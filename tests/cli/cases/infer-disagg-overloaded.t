args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.prefill_replicas=1 --set inference.decode_replicas=1 --set inference.qps=60
exit: 1
