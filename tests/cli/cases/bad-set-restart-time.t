args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.restart_time=2w
exit: 2
