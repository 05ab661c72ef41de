args: stacks --stacks tests/cli/data/stacks-wrong-section.csv
exit: 3
