args: train tests/cli/data/wl-hf-field.ini --gpu A100-SXM-80GB
exit: 3
