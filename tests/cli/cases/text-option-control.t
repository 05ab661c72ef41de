args: train tests/cli/data/wl-ok.ini --gpu H100-SXM --\033[31m
exit: 2
