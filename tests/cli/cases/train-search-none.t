args: train tests/cli/data/wl-bigmodel.ini --gpu A100-SXM-80GB --search
exit: 1
