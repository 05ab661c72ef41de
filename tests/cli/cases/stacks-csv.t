args: stacks --stacks tests/cli/data/stacks-list.csv --format csv
exit: 0
