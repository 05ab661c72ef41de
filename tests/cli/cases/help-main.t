args: --help
exit: 0
