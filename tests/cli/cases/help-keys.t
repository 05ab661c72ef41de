args: help keys
exit: 0
