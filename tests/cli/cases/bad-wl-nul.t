args: train tests/cli/data/wl-nul.ini --gpu A100-SXM-80GB
exit: 3
