args: sweep examples/llama3-8b.ini --gpu H100-SXM --vary training.gpus=1..200000
exit: 2
