args: train tests/cli/data/wl-recsys-bad-dot.ini --gpu A100-SXM-80GB
exit: 3
