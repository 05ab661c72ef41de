args: stacks
exit: 0
