args: infer examples/llama3-405b.ini --gpu T4 --set inference.tp=4
exit: 1
