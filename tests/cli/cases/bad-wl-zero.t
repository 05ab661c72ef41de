args: train tests/cli/data/wl-zero.ini --gpu A100-SXM-80GB
exit: 3
