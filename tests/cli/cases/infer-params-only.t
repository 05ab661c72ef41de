args: infer examples/params-only-13b.ini --gpu H100-SXM
exit: 1
