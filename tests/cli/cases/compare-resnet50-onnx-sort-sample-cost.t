args: compare examples/resnet50-onnx.ini --gpu A100-SXM-80GB,H100-SXM,L4,T4,Gaudi3 --sort sample-cost
exit: 0
