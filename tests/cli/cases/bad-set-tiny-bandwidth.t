args: train examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --set cluster.intra_bw=1e-300B/s
exit: 2
