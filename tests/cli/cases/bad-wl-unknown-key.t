args: train tests/cli/data/wl-unknown-key.ini --gpu A100-SXM-80GB
exit: 3
