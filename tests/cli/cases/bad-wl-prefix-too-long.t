args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.shared_prefix_tokens=224
exit: 3
