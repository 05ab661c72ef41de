args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.weight_precision=fp4 --set inference.tp=2 --set inference.batch=64 --format json
exit: 0
