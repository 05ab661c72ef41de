args: catalog --gpu H100-SXM --format json
exit: 0
