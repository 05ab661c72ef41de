args: plot scaling examples/llama3-8b.ini -o build/never-written.svg --gpu H100-SXM --set cluster.gpus_per_node=1073741825
exit: 2
