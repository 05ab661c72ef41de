args: catalog --catalog tests/cli/data/cat-price-basis.csv --format json
exit: 0
