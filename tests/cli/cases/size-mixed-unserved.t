args: size examples/llama3-8b-mixed.ini --mixed --gpu L4,A10 --set inference.ttft_slo=100ms
exit: 1
