args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.arrival=closed --set inference.qps=0 --set inference.concurrency=4 --set inference.requests=4 --format json
exit: 0
