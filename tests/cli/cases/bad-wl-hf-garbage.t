args: train tests/cli/data/wl-hf-garbage.ini --gpu A100-SXM-80GB
exit: 3
