args: infer examples/llama3-8b.ini --gpu H100-SXM --set cluster.gpus_per_node=1073741825
exit: 2
