args: train tests/cli/data/wl-garbled.ini --gpu A100-SXM-80GB
exit: 3
