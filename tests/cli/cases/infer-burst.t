args: infer tests/cli/data/burst-8b.ini --gpu A100-SXM-80GB
exit: 0
