args: compare examples/llama3-405b.ini --gpu T4,A10
exit: 1
