args: size examples/llama3-8b.ini --deadline 90
exit: 2
