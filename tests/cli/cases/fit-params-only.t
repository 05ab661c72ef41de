args: fit examples/params-only-13b.ini
exit: 0
