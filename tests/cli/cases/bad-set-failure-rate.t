args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.failures_per_gpu_hour=-1e-5
exit: 2
