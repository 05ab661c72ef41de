args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.storage_bw=10kB/s
exit: 2
