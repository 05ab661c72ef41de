args: infer --model examples/hf/qwen3-32b-fp8.json --gpu A100-SXM-80GB
exit: 0
