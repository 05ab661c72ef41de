args: plot scaling examples/llama3-8b.ini -o -
exit: 2
