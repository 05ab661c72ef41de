args: compare examples/resnet50-imagenet.ini --sort latency
exit: 2
