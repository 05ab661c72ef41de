args: catalog --catalog tests/cli/data/cat-bad-node.csv
exit: 3
