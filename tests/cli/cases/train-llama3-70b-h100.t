args: train examples/llama3-70b.ini --gpu H100-SXM --gpus 1024
exit: 0
