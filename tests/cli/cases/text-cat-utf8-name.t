setup: sed 's/^X1,/X\xff1,/' tests/cli/data/cat-ok.csv >$T/c.csv
args: catalog --catalog $T/c.csv --format json
exit: 3
