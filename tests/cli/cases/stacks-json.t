args: stacks --stacks tests/cli/data/stacks-list.csv --format json
exit: 0
