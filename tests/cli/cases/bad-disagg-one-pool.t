args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.prefill_replicas=2
exit: 3
