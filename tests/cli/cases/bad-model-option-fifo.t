setup: mkfifo $T/config.json
args: fit --model $T/config.json --gpu H100-SXM
exit: 4
