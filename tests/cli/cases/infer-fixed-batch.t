args: infer examples/llama3-70b-serving.ini --gpu A100-SXM-80GB --set inference.batch=16 --set inference.tp=4
exit: 0
