args: infer tests/cli/data/engine-typo.ini --gpu H100-SXM
exit: 3
