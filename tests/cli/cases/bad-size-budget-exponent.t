args: size examples/llama3-8b.ini --budget 1e9
exit: 2
