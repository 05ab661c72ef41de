args: train tests/cli/data/no\033[31m.ini --gpu H100-SXM
exit: 4
