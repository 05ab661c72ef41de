args: train examples/dlrm-criteo.ini --gpu A100-SXM-80GB --set training.step_overhead=0 --format csv
exit: 0
