args: train examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --set cluster.failures_per_gpu_hour=0 --set cluster.maintenance=0 --set training.checkpoint_interval=1h --format csv
exit: 0
