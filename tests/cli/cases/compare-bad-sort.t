args: compare examples/llama3-8b.ini --sort fastest
exit: 2
