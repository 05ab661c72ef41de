args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.pricing=owned --set cluster.amortization_years=0
exit: 2
