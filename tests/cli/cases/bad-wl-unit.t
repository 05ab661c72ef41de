args: train tests/cli/data/wl-unit.ini --gpu A100-SXM-80GB
exit: 3
