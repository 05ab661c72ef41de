args: train examples/llama2-7b-hsdp.ini --gpu A100-SXM-80GB --gpus 128 --set training.zero_shard=3
exit: 1
