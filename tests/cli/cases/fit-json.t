args: fit tests/cli/data/wl-ok.ini --gpu T4,L4 --format json
exit: 0
