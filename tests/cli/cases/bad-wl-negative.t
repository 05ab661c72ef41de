args: train tests/cli/data/wl-negative.ini --gpu A100-SXM-80GB
exit: 3
