stdin: tests/cli/data/cat-missing-col.csv
args: catalog --catalog -
exit: 3
