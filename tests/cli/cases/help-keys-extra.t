args: help keys model extra
exit: 2
