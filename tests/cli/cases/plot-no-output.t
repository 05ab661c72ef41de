args: plot scaling examples/llama3-8b.ini
exit: 2
