args: fit --model tests/cli/data/hf-duplicate.json --gpu H100-SXM
exit: 3
