args: train examples/llama3-8b.ini --gpu A100-SXM-80GB --gpus 64 --format json
exit: 0
