args: train examples/llama3-8b.ini --gpu H100-SXM --set model.layers=1000000000 --set training.recompute=selective
exit: 2
