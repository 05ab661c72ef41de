args: catalog --catalog tests/cli/data/cat-ctrl-name.csv
exit: 3
