args: train examples/llama3-8b.ini --gpu B200 --set training.precision=fp4
exit: 2
