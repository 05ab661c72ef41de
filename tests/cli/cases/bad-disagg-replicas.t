args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM --set inference.replicas=3
exit: 3
