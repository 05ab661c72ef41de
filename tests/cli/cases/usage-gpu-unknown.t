args: train examples/llama3-8b.ini --gpu h100
exit: 2
