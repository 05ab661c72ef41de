args: catalog --catalog tests/cli/data/cat-quote.csv
exit: 3
