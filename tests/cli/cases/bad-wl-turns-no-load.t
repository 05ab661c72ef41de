args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.qps=0 --set inference.turns=3
exit: 3
