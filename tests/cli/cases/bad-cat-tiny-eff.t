setup: sed '2s/,0\.8,0\.9,/,1e-300,0.9,/' tests/cli/data/cat-ok.csv >$T/c.csv
args: catalog --catalog $T/c.csv
exit: 3
