args: size examples/llama3-8b.ini --catalog tests/cli/data/cat-price-basis.csv --deadline 90d
exit: 0
