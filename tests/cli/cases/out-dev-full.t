args: catalog --format json -o /dev/full
exit: 4
check: [ -c /dev/full ]
