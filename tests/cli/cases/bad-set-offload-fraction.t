args: train examples/llama3-8b.ini --gpu H100-SXM --set training.offload_optimizer=1.5
exit: 2
