args: train tests/cli/data/wl-divide.ini --gpu A100-SXM-80GB
exit: 1
