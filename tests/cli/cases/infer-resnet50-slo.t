args: infer examples/resnet50-imagenet.ini --gpu L4 --set inference.qps=2000 --set inference.ttft_slo=50ms
exit: 1
