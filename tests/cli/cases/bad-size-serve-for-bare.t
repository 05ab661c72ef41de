args: size examples/llama3-70b-serving.ini --gpu H100-SXM --serve-for 365
exit: 2
