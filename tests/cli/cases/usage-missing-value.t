args: train examples/llama3-8b.ini --gpu
exit: 2
