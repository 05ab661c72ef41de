args: catalog --format xml
exit: 2
