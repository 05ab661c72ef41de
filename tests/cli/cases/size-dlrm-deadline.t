args: size examples/dlrm-criteo.ini --deadline 10min --gpu A100-SXM-80GB,H100-SXM,L4
exit: 0
