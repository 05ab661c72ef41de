args: infer examples/edge-llama3.2-1b.ini --gpu Jetson-Orin-Nano-8GB --set inference.concurrency=4
exit: 0
