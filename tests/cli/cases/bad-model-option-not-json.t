args: fit --model examples/llama3-8b.ini --gpu H100-SXM
exit: 3
