setup: mkfifo $T/w.ini && { cat tests/cli/data/wl-ok.ini >$T/w.ini & }
args: fit $T/w.ini --gpu H100-SXM
exit: 0
