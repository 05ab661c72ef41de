args: train tests/cli/data/wl-hf-missing.ini --gpu A100-SXM-80GB
exit: 4
