args: train examples/llama3-405b.ini --gpu H100-SXM --set training.async_checkpoint=true --set cluster.storage_bw=100MB/s --format json
exit: 0
