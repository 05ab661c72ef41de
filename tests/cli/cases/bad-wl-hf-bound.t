args: train tests/cli/data/wl-hf-huge.ini --gpu H100-SXM
exit: 3
