args: catalog --catalog tests/cli/data/no-such-file.csv
exit: 4
