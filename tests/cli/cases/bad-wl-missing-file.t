args: train tests/cli/data/no-such-file.ini --gpu A100-SXM-80GB
exit: 4
