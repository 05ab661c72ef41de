args: train examples/llama3-8b.ini --gpu H100-SXM --set training.samples=1M
exit: 3
