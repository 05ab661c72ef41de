args: catalog --catalog tests/cli/data/cat-bad-kind.csv
exit: 3
