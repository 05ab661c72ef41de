args: train tests/cli/data/wl-long-line.ini --gpu A100-SXM-80GB
exit: 3
