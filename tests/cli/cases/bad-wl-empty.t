args: train tests/cli/data/wl-empty.ini --gpu A100-SXM-80GB
exit: 3
