args: train examples/mixtral-8x7b.ini --gpu H100-SXM --gpus 256
exit: 0
