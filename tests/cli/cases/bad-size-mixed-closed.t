args: size examples/llama3-8b-fleet.ini --mixed --gpu H100-SXM,L4 --set inference.qps=0 --set inference.concurrency=16
exit: 2
