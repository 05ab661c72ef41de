args: size examples/llama3-405b.ini --deadline 1d --gpu T4
exit: 1
