args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.think_time=2s
exit: 3
