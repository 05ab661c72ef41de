args: fit --model tests/cli/data/hf-quant-bits.json --gpu H100-SXM
exit: 3
