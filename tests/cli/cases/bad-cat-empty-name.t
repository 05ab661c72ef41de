args: catalog --catalog tests/cli/data/cat-empty-name.csv
exit: 3
