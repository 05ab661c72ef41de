args: stacks --stacks tests/cli/data/stacks-bad-column.csv
exit: 3
