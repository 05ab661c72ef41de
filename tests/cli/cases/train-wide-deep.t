args: train examples/wide-deep-criteo.ini --gpu A100-SXM-80GB
exit: 0
