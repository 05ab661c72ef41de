args: stacks --format json
exit: 0
