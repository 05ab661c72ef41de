args: sweep examples/llama3-8b.ini --gpu H100-SXM --vary cluster.gpus_per_node=8,65536,1073741825
exit: 0
