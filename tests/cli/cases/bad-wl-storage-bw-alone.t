args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.prefix_caching=true --set inference.kv_storage_bw=10GB/s
exit: 3
