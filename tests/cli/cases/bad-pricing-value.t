args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.pricing=rent
exit: 2
