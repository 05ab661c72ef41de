args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.decode_attention=per_query
exit: 2
