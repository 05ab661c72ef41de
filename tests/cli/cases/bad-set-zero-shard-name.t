args: train examples/llama3-8b.ini --gpu H100-SXM --set training.zero_shard=rack
exit: 2
