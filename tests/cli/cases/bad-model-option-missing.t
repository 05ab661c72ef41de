args: infer --model tests/cli/data/no-such.json --gpu H100-SXM
exit: 4
