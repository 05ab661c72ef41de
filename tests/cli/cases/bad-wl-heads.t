args: train tests/cli/data/wl-heads.ini --gpu A100-SXM-80GB
exit: 3
