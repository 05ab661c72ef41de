args: catalog --stacks tests/cli/data/stacks-ok.csv
exit: 2
