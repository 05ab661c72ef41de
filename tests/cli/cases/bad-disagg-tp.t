args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.decode_tp=3
exit: 3
