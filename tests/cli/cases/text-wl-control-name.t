setup: sed 's/^name = .*/name = ok\x1b]0;pwned\x07/' tests/cli/data/wl-ok.ini >$T/w.ini
args: train $T/w.ini --gpu H100-SXM
exit: 3
