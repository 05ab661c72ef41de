args: catalog --catalog tests/cli/data/cat-unit.csv
exit: 3
