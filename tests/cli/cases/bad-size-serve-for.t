args: size examples/llama3-70b-serving.ini --gpu H100-SXM --serve-for 200y
exit: 2
