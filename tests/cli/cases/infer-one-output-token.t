args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.tp=2 --set inference.replicas=5 --set inference.output_tokens=1
exit: 0
