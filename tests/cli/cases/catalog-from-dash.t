stdin: tests/cli/data/cat-ok.csv
args: catalog --catalog -
exit: 0
