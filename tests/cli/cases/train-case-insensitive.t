args: train tests/cli/data/wl-ok.ini --gpu a100-sxm-80gb
exit: 0
