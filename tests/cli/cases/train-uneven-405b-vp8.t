args: train examples/llama3-405b.ini --gpu H100-SXM --set training.vp=8
exit: 0
