args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.turns=4 --set inference.think_time=30s --set inference.turn_tokens=64 --set inference.prefix_caching=true --set inference.requests=1500 --set inference.qps=40 --set inference.memory_fraction=0.3 --set inference.kv_offload_memory=20GB --set inference.kv_offload_storage=300GB --format json
exit: 0
