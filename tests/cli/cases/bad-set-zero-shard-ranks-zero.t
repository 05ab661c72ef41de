args: train examples/llama2-7b-hsdp.ini --gpu A100-SXM-80GB --set training.zero_shard=16 --set training.zero=0
exit: 3
