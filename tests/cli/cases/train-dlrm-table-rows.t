args: train tests/cli/data/wl-dlrm-f15-tables.ini --gpu A100-SXM-80GB
exit: 0
