args: train examples/llama3-8b.ini --gpu H100-SXM --gpus 16777217
exit: 2
