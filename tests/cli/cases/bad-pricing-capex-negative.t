args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.pricing=owned --set cluster.capex_per_gpu=-5
exit: 2
