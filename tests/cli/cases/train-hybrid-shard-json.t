args: train examples/llama3-8b.ini --gpu A100-SXM-80GB --gpus 128 --set training.tp=1 --set training.pp=1 --set training.zero=3 --set training.zero_shard=node --format json
exit: 0
