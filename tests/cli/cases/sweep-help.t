args: sweep --help
exit: 0
