args: train tests/cli/data/wl-recsys-rows-count.ini --gpu A100-SXM-80GB
exit: 3
