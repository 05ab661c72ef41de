setup: sed 's/^X1,/X\xc2\x9b1,/' tests/cli/data/cat-ok.csv >$T/c.csv
args: catalog --catalog $T/c.csv
exit: 3
