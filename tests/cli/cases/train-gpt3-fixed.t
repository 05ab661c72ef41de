args: train examples/gpt3-175b.ini --gpu A100-SXM-80GB
exit: 0
