args: compare --help
exit: 0
