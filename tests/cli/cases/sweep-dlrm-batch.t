args: sweep examples/dlrm-criteo.ini --gpu A100-SXM-80GB --vary inference.batch=64,2048
exit: 0
