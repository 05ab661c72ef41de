args: help train
exit: 0
