args: compare examples/resnet50-imagenet.ini --gpu A100-SXM-80GB,H100-SXM,L4 --format csv
exit: 0
