setup: sed 's/^X1,/X 1,/' tests/cli/data/cat-ok.csv >$T/c.csv
args: catalog --catalog $T/c.csv
exit: 3
