args: size examples/llama3-8b-mixed.ini --mixed --gpu H100-SXM
exit: 2
