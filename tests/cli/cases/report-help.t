args: report --help
exit: 0
