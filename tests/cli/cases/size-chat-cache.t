args: size examples/llama3-8b-chat.ini --gpu H100-SXM,B200
exit: 0
