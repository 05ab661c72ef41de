args: catalog --help
exit: 0
