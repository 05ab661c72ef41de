args: catalog --catalog tests/cli/data/cat-bad-capex.csv
exit: 3
