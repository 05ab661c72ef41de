args: train tests/cli/data/wl-stage-zero.ini --gpu H100-SXM
exit: 3
