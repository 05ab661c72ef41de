args: catalog -o $T/no/such.csv
exit: 4
