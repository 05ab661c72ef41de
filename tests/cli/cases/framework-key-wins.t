args: train examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --set training.framework=fsdp --set training.zero=1 --format json
exit: 0
