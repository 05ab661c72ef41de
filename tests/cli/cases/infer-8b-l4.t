args: infer examples/llama3-8b-l4.ini --gpu L4
exit: 0
