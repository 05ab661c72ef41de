args: infer examples/resnet50-onnx.ini --gpu A100-SXM-80GB --set inference.weight_precision=tf32
exit: 0
