args: size examples/llama3-8b.ini --budget 2M --gpu H100-SXM,T4 --format json
exit: 0
