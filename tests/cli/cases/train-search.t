args: train examples/llama3-70b.ini --gpu H100-SXM --gpus 1024 --search --top 5
exit: 0
