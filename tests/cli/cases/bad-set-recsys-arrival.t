args: infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB --set inference.arrival=closed --set inference.concurrency=8
exit: 3
