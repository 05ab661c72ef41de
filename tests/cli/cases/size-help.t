args: size --help
exit: 0
