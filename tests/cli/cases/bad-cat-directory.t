args: catalog --catalog tests/cli
exit: 4
