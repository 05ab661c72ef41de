args: infer examples/mixtral-8x7b.ini --gpu H100-SXM --set inference.ep=3
exit: 3
