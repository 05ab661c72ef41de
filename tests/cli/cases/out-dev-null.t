args: catalog --format json -o /dev/null
exit: 0
check: [ -c /dev/null ]
