args: train examples/llama3-8b.ini --gpu H100-SXM --gpus 8 --set training.tokens=1000
exit: 0
