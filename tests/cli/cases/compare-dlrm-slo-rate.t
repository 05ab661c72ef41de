args: compare examples/dlrm-criteo.ini --gpu H100-SXM,L4,T4 --set inference.qps=2e7 --set inference.ttft_slo=1ms --sort latency --wide
exit: 0
