args: train examples/llama3-8b.ini --gpu H100-SXM --set training.zero_shard=node --set training.zero=0
exit: 3
