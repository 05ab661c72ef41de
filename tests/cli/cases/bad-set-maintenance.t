args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.maintenance=0.9
exit: 2
