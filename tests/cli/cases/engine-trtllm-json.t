args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.engine=trtllm --format json
exit: 0
