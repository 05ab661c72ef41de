args: train examples/llama3-8b.ini extra --gpu H100-SXM
exit: 2
