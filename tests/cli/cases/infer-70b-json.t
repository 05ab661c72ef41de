args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --format json
exit: 0
