args: infer --model tests/cli/data/hf-quant-hqq.json --gpu H100-SXM
exit: 3
