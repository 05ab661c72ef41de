args: compare examples/dlrm-criteo.ini --gpu A100-SXM-80GB,L4 --format json
exit: 0
