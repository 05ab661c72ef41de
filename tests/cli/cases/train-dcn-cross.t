args: train tests/cli/data/wl-recsys-dcn.ini --gpu H100-SXM
exit: 0
