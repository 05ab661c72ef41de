args: catalog --catalog tests/cli/data/cat-idle-over-tdp.csv
exit: 3
