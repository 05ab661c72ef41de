args: infer examples/deepseek-v3.ini --gpu H200-SXM
exit: 0
