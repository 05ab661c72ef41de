args: train tests/cli/data/wl-duplicate.ini --gpu A100-SXM-80GB
exit: 3
