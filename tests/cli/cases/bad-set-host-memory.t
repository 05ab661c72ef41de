args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.host_memory=-2TB
exit: 2
