args: catalog --catalog tests/cli/data/cat-duplicate.csv
exit: 3
