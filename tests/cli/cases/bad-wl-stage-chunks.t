args: train examples/llama3-405b.ini --gpu H100-SXM --set training.vp=9
exit: 3
