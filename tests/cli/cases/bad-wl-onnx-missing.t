args: train examples/resnet50-onnx.ini --gpu A100-SXM-80GB --set model.onnx=tests/cli/data/missing.onnx
exit: 4
