args: catalog --catalog tests/cli/data/cat-ok.csv --format json
exit: 0
