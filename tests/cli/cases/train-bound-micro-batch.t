args: train examples/llama3-8b.ini --gpu H100-SXM --set training.micro_batch=1073741824
exit: 1
