args: catalog --catalog tests/cli/data/cat-bad-basis.csv
exit: 3
