args: train tests/cli/data/wl-recsys-both-dense.ini --gpu A100-SXM-80GB
exit: 3
