args: train examples/efficientnet-b0-onnx.ini --gpu H100-SXM --format json
exit: 0
