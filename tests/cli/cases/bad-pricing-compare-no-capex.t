args: compare examples/llama3-8b.ini --set cluster.pricing=owned --gpu H100-SXM,V100-SXM-32GB
exit: 3
