args: catalog --catalog tests/cli/data/cat-zero.csv
exit: 3
