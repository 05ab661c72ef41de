args: train examples/llama3-405b.ini --gpu H100-SXM --set cluster.failures_per_gpu_hour=0.01
exit: 1
