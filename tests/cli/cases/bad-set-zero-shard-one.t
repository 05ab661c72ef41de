args: train examples/llama2-7b-hsdp.ini --gpu A100-SXM-80GB --gpus 128 --set training.zero_shard=1
exit: 2
