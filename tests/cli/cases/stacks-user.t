args: stacks --stacks tests/cli/data/stacks-ok.csv
exit: 0
