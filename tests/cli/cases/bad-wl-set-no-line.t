args: train examples/llama3-8b.ini --gpu H100-SXM --set model.heads=7
exit: 3
