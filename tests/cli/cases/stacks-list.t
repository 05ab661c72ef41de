args: stacks --stacks tests/cli/data/stacks-list.csv
exit: 0
