args: catalog --catalog tests/cli/data/cat-long-name.csv
exit: 3
