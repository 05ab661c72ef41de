args: sweep examples/llama3-8b.ini --gpu H100-SXM --vary training.gpus=1..8x1
exit: 2
