args: fit examples/llama3-70b.ini --gpu H100-SXM --gpus 64 --set training.zero=3 --set training.zero_shard=node --set training.tp=1 --set training.pp=1 --set training.offload_optimizer=false
exit: 1
