args: infer --help
exit: 0
