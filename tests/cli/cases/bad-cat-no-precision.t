args: catalog --catalog tests/cli/data/cat-no-precision.csv
exit: 3
