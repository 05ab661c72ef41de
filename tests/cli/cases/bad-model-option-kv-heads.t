setup: cp tests/fuzz/seeds/hf/issue40-kv-heads.json $T/c.json
args: fit --model $T/c.json --gpu H100-SXM
exit: 3
