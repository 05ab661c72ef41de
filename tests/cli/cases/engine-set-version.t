args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.engine=vllm@0.7
exit: 2
