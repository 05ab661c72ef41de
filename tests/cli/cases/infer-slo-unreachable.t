args: infer examples/llama3-70b-serving.ini --gpu L4 --set inference.tpot_slo=5ms
exit: 1
