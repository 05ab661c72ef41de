args: infer examples/resnet50-onnx.ini --gpu A100-SXM-80GB --set inference.weight_only=true --set inference.weight_precision=int8
exit: 3
