args: train examples/resnet50-onnx.ini --gpu A100-SXM-80GB
exit: 0
