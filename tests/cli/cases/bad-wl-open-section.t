args: train tests/cli/data/wl-open-section.ini --gpu A100-SXM-80GB
exit: 3
