args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.max_batched_tokens=16 --set inference.max_batch=32
exit: 3
