args: catalog --catalog tests/cli/data/cat-header-only.csv
exit: 3
