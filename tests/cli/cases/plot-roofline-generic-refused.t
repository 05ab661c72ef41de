args: plot roofline examples/resnet50-imagenet.ini --gpu A100-SXM-80GB -o chart.svg
exit: 2
