args: train tests/cli/data/wl-overflow.ini --gpu A100-SXM-80GB
exit: 3
