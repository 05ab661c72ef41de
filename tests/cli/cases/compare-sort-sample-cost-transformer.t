args: compare examples/llama3-8b.ini --gpu H100-SXM --sort sample-cost
exit: 2
