args: catalog --catalog tests/cli/data/cat-dup-column.csv
exit: 3
