args: sweep examples/resnet50-onnx.ini --gpu L4 --vary inference.batch=1..256x4 --format csv
exit: 0
