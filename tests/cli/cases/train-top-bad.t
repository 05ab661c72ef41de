args: train examples/llama3-8b.ini --gpu H100-SXM --top 0
exit: 2
