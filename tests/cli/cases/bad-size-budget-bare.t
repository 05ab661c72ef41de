args: size examples/llama3-8b.ini --budget 15
exit: 2
