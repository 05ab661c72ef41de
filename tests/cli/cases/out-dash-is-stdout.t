args: catalog --gpu H100-SXM -o -
exit: 0
check: [ ! -e ./- ]
