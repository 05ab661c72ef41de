args: catalog --catalog tests/cli/data/cat-fields.csv
exit: 3
