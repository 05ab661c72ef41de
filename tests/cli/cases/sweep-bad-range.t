args: sweep examples/llama3-8b.ini --gpu H100-SXM --vary training.gpus=10..1
exit: 2
