args: infer examples/edge-llama3.2-1b.ini --gpu Jetson-Orin-Nano-8GB --set inference.power_cap=7W
exit: 0
