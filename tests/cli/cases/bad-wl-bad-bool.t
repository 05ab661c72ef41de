args: train tests/cli/data/wl-bad-bool.ini --gpu A100-SXM-80GB
exit: 3
