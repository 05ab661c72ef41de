args: train tests/cli/data/wl-ok.ini --gpu H100\033]0;pwned\007
exit: 2
