args: infer examples/resnet50-onnx.ini --gpu L4
exit: 0
