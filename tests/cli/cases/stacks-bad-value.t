args: stacks --stacks tests/cli/data/stacks-bad-value.csv
exit: 3
