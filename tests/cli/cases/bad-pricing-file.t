args: train tests/cli/data/wl-bad-pricing.ini --gpu H100-SXM
exit: 3
