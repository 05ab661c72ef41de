args: train examples/llama3-8b.ini --gpu H100-SXM --serve-for 1y
exit: 2
