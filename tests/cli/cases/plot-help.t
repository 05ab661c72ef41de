args: plot --help
exit: 0
