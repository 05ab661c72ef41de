args: size examples/llama3-70b-serving.ini --mixed --gpu H100-SXM,MI300X --set inference.qps=0
exit: 2
