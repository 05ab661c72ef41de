args: fit --model examples/hf --gpu H100-SXM
exit: 4
