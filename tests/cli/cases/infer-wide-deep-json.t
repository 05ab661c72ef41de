args: infer examples/wide-deep-criteo.ini --gpu A100-SXM-80GB --format json
exit: 0
