args: catalog --catalog tests/cli/data/cat-negative.csv
exit: 3
