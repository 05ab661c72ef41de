args: size examples/llama3-8b.ini --catalog tests/cli/data/cat-price-basis.csv --budget 1.5M
exit: 0
