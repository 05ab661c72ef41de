args: size examples/llama3-8b.ini --deadline soon
exit: 2
