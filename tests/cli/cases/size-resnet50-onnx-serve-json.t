args: size examples/resnet50-onnx.ini --gpu H100-SXM,T4 --set inference.qps=1e6 --set inference.ttft_slo=10ms --deadline 1h --format json
exit: 0
