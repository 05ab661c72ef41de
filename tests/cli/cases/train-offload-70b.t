args: train examples/llama3-70b.ini --gpu H100-SXM --gpus 8
exit: 0
