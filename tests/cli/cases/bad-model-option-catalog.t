args: catalog --model examples/hf/qwen2-7b.json
exit: 2
