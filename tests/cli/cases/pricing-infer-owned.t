args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set cluster.pricing=owned
exit: 0
