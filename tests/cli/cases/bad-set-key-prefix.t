args: infer examples/llama3-8b.ini --gpu H100-SXM --set inference.ttft=1s
exit: 2
