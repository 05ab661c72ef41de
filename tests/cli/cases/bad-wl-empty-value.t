args: train tests/cli/data/wl-empty-value.ini --gpu A100-SXM-80GB
exit: 3
