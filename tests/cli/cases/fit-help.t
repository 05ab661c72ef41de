args: fit --help
exit: 0
