args: infer examples/llama3-70b-serving.ini --gpu B200 --set inference.kv_precision=fp4
exit: 2
