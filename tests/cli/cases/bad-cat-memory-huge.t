setup: cp tests/fuzz/seeds/catalog/issue40-memory-1e30.csv $T/c.csv
args: catalog --catalog $T/c.csv
exit: 3
