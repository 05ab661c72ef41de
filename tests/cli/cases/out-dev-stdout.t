args: catalog --gpu H100-SXM --format csv -o /dev/stdout
exit: 0
