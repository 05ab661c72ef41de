args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.prefix_caching=false --set inference.kv_offload_memory=100GB
exit: 3
