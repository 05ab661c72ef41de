args: size examples/llama3-8b.ini --mixed --gpu H100-SXM,A100-SXM-80GB
exit: 2
