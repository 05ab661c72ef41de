args: size examples/llama3-8b.ini --budget -2M
exit: 2
