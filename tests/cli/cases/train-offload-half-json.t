args: train examples/llama3-70b.ini --gpu H100-SXM --gpus 16 --set training.offload_optimizer=0.5 --set cluster.cpu_adam_rate=8B --format json
exit: 0
