args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.prefix_caching=true
exit: 3
