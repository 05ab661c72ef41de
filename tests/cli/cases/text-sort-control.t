args: compare tests/cli/data/wl-ok.ini --sort \033[31mtime
exit: 2
