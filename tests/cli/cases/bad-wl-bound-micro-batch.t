args: train examples/llama3-8b.ini --gpu H100-SXM --set training.micro_batch=2147483647
exit: 2
