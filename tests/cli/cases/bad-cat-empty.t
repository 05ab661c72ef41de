args: catalog --catalog tests/cli/data/cat-empty.csv
exit: 3
