args: infer examples/resnet50-imagenet.ini --gpu H100-SXM --set inference.weight_precision=int4 --set inference.qps=2000000 --set inference.ttft_slo=300ms --format json
exit: 0
