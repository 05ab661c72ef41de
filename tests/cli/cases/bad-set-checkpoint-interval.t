args: train examples/llama3-8b.ini --gpu H100-SXM --set training.checkpoint_interval=-5min
exit: 2
