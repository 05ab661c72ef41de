args: train examples/llama3-70b.ini --gpu H100-SXM --gpus 8 --set cluster.host_memory=512GB
exit: 1
