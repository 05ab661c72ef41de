args: train tests/cli/data/wl-ok.ini --gpu H100-SXM --set model.name=x\033[2J
exit: 2
