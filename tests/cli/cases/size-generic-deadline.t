args: size examples/resnet50-imagenet.ini --gpu A100-SXM-80GB --deadline 1d
exit: 0
