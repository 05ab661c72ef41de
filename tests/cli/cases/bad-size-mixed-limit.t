args: size examples/llama3-8b-mixed.ini --mixed --gpu H100-SXM,L4 --budget 10K
exit: 2
