args: train tests/cli/data/wl-nomodel.ini --gpu A100-SXM-80GB
exit: 3
