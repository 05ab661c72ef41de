args: infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB
exit: 0
