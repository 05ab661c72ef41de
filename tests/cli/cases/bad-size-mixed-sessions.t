args: size examples/llama3-8b-chat.ini --mixed --gpu H100-SXM,L4
exit: 2
