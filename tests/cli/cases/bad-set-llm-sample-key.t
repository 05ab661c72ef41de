args: infer examples/llama3-8b.ini --gpu H100-SXM --set inference.fusion=true
exit: 3
