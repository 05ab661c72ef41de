args: catalog --catalog tests/cli/data/cat-missing-col.csv
exit: 3
