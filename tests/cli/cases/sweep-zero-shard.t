args: sweep examples/llama2-7b-hsdp.ini --gpu A100-SXM-80GB --gpus 128 --vary training.zero_shard=all,node --vary cluster.inter_bw=25Gb/s,200Gb/s
exit: 0
