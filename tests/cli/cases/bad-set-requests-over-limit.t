args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.requests=50001
exit: 2
