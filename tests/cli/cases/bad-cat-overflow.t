args: catalog --catalog tests/cli/data/cat-overflow.csv
exit: 3
