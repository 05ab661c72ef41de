args: train tests/cli/data/wl-bad-offload.ini --gpu H100-SXM
exit: 3
