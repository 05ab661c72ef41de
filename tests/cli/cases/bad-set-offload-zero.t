args: train examples/llama3-8b.ini --gpu H100-SXM --set training.offload_optimizer=true --set training.zero=0
exit: 3
