args: catalog
exit: 0
