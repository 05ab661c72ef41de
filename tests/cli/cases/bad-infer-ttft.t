args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.ttft_slo=0
exit: 2
