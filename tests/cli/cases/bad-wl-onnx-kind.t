args: train examples/resnet50-onnx.ini --gpu A100-SXM-80GB --set model.kind=recsys
exit: 3
