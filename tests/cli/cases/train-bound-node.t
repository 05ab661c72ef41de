args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.gpus_per_node=65536
exit: 0
