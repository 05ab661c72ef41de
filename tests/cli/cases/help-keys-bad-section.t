args: help keys clusters
exit: 2
