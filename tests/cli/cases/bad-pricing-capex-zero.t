args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.capex_per_gpu=0
exit: 2
