args: compare examples/llama3-405b.ini --gpu T4,A10 --set training.gpus=256
exit: 1
