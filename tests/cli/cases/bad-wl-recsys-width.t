args: train tests/cli/data/wl-recsys-bad-width.ini --gpu A100-SXM-80GB
exit: 3
