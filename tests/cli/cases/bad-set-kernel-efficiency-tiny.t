args: train examples/resnet50-imagenet.ini --gpu A100-SXM-80GB --set model.kernel_efficiency=1e-300
exit: 2
