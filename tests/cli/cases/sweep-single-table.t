args: sweep examples/llama3-8b.ini --gpu H100-SXM --vary training.gpus=64
exit: 0
