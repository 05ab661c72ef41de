args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.turns=4 --set inference.think_time=2s --set inference.turn_tokens=64 --set inference.shared_prefix_tokens=128 --set inference.prefix_caching=true --set inference.requests=600 --format json
exit: 0
