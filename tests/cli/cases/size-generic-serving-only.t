args: size tests/cli/data/wl-generic-nosamples.ini --gpu H100-SXM,L4 --set inference.qps=5e4 --set inference.ttft_slo=50ms
exit: 0
