args: size examples/llama3-8b-chat.ini --gpu H100-SXM --format json
exit: 0
