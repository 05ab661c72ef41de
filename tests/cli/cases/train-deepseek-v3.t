args: train examples/deepseek-v3.ini --gpu H800
exit: 0
