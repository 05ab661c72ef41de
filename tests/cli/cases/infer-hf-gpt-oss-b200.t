args: infer --model examples/hf/gpt-oss-120b.json --gpu B200
exit: 0
