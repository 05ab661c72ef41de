args: catalog --catalog tests/cli/data/cat-nul.csv
exit: 3
