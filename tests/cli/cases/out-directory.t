args: catalog -o $T
exit: 4
