args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.prefix_groups=4
exit: 3
