args: infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB --top 3
exit: 2
