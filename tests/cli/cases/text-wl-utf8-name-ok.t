setup: sed 's/^name = .*/name = caf\xc3\xa9 X 1/' tests/cli/data/wl-ok.ini >$T/w.ini
args: fit $T/w.ini --gpu H100-SXM
exit: 0
