args: train examples/llama3-8b.ini --gpu A100-SXM-80GB --gpus 16 --search --top 3 --format json
exit: 0
