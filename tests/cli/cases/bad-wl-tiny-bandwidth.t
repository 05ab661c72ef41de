setup: { cat tests/cli/data/wl-ok.ini; printf '[cluster]\ninter_bw = 1e-300Gb/s\n'; } >$T/w.ini
args: train $T/w.ini --gpu H100-SXM
exit: 3
