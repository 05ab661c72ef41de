args: train tests/cli/data/wl-tokens-huge.ini --gpu A100-SXM-80GB
exit: 3
