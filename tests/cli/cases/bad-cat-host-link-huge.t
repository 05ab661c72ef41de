setup: cp tests/fuzz/seeds/catalog/issue40-host-link-huge.csv $T/c.csv
args: catalog --catalog $T/c.csv
exit: 3
