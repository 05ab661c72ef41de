args: catalog --catalog tests/cli/data/cat-bad-rent.csv
exit: 3
