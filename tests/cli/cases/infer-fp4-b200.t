args: infer examples/llama3-70b-serving.ini --gpu B200 --set inference.weight_precision=fp4 --set inference.tp=1 --set inference.batch=64
exit: 0
