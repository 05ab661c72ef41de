args: train tests/cli/data --gpu H100-SXM
exit: 4
