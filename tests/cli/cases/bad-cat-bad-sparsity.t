args: catalog --catalog tests/cli/data/cat-bad-sparsity.csv
exit: 3
