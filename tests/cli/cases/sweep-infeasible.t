args: sweep examples/llama3-405b.ini --gpu T4 --vary training.gpus=8,16
exit: 1
