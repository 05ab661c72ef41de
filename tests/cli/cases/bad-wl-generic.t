args: train tests/cli/data/wl-generic-incomplete.ini --gpu A100-SXM-80GB
exit: 3
