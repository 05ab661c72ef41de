args: stacks --stacks tests/cli/data/no-such-stacks.csv
exit: 4
