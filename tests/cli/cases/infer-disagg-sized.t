args: infer examples/llama3-8b-disagg.ini --gpu H100-SXM
exit: 0
