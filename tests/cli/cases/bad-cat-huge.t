args: catalog --catalog tests/cli/data/cat-huge.csv
exit: 3
