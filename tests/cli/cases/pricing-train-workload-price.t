args: train examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --set cluster.pricing=owned --set cluster.price_per_gpu_hour=2.1 --format json
exit: 0
