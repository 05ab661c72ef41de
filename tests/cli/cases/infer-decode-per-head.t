args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.qps=0 --set inference.tp=2 --set inference.batch=64 --set inference.decode_attention=per_head
exit: 1
