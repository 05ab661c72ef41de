args: infer examples/llama3-8b-fleet.ini --gpu B200 --set inference.prefix_caching=true --set inference.kv_offload_memory=100GB
exit: 1
