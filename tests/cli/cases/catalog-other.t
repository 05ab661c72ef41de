args: catalog --catalog tests/cli/data/cat-ok.csv
exit: 0
