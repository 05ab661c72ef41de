args: compare examples/llama3-8b.ini --gpu H100-SXM,A100-SXM-80GB --set cluster.gpus_per_node=1073741825
exit: 2
