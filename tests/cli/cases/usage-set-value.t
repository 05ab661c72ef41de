args: train examples/llama3-8b.ini --gpu H100-SXM --set training.tp=eight
exit: 2
