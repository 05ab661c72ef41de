args: size examples/llama3-8b.ini --power-cap 0
exit: 2
