args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.kernel_overhead=1s
exit: 1
