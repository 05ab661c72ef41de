args: infer examples/mixtral-8x7b.ini --gpu H100-SXM
exit: 0
