args: train examples/params-only-13b.ini --gpu A100-SXM-40GB --format json
exit: 1
