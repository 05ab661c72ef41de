args: fit examples/resnet50-imagenet.ini --gpu A100-SXM-80GB,L4
exit: 0
