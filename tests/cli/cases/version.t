args: --version
exit: 0
