args: train examples/dlrm-criteo.ini --gpu A100-SXM-80GB --set training.step_overhead=2s
exit: 2
