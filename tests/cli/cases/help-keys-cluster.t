args: help keys cluster
exit: 0
