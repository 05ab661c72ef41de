args: stacks --format csv
exit: 0
