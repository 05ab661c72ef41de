args: size examples/llama3-8b.ini --power-cap 100
exit: 2
