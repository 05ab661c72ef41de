args: train examples/llama3-8b.ini --gpu H100-SXM --set training.tpp=8
exit: 2
