args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.prefill_replicas=1 --set inference.decode_replicas=2 --set inference.decode_tp=2 --format json
exit: 0
