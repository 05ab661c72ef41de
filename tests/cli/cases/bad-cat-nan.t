args: catalog --catalog tests/cli/data/cat-nan.csv
exit: 3
