args: size examples/llama3-8b.ini --budget 2M --gpu H100-SXM,A100-SXM-80GB
exit: 0
