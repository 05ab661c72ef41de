args: catalog --catalog tests/cli/data/cat-garbled.csv
exit: 3
