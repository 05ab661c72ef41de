args: train tests/cli/data/wl-no-equals.ini --gpu A100-SXM-80GB
exit: 3
