args: train examples/resnet50-onnx.ini --gpu A100-SXM-80GB --set model.params=25M
exit: 3
