args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.qps=-1
exit: 2
