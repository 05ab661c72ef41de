args: compare examples/resnet50-imagenet.ini --sort token-cost
exit: 2
