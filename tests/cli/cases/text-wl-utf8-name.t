setup: sed 's/^name = .*/name = caf\xe9/' tests/cli/data/wl-ok.ini >$T/w.ini
args: train $T/w.ini --gpu H100-SXM --format json
exit: 3
