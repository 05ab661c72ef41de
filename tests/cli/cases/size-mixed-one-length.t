args: size examples/llama3-70b-serving.ini --mixed --gpu L40S,H20,H100-SXM,MI300X,B200 --set inference.qps=8 --format json
exit: 0
