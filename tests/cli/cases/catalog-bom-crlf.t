args: catalog --catalog tests/cli/data/cat-bom-crlf.csv --format csv
exit: 0
