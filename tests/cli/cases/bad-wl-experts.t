args: train tests/cli/data/wl-experts.ini --gpu A100-SXM-80GB
exit: 3
