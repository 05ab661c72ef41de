args: train tests/cli/data/wl-indented.ini --gpu A100-SXM-80GB
exit: 3
