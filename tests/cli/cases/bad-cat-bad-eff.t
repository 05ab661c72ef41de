args: catalog --catalog tests/cli/data/cat-bad-eff.csv
exit: 3
