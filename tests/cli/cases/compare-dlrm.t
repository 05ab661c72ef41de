args: compare examples/dlrm-criteo.ini --gpu A100-SXM-80GB,H100-SXM,H200-SXM,B200,MI300X,L4
exit: 0
