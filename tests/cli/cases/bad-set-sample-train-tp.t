args: train examples/resnet50-onnx.ini --gpu A100-SXM-80GB --set training.tp=2
exit: 3
