args: train examples/resnet50-imagenet.ini --gpu A100-SXM-80GB --search
exit: 2
