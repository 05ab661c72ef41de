args: train tests/cli/data/wl-nan.ini --gpu A100-SXM-80GB
exit: 3
