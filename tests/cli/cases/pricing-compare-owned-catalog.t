args: compare examples/llama3-8b.ini --set cluster.pricing=owned
exit: 0
