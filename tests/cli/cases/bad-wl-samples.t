args: train tests/cli/data/wl-generic-nosamples.ini --gpu A100-SXM-80GB
exit: 1
