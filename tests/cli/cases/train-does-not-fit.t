args: train tests/cli/data/wl-bigmodel.ini --gpu A100-SXM-80GB
exit: 1
