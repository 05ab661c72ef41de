args: infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB --set inference.batch=32 --set inference.server=triton --set inference.cuda_graphs=false --format json
exit: 0
