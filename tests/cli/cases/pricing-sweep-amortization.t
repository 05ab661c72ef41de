args: sweep examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --set cluster.pricing=owned --vary cluster.amortization_years=3,4,5 --format csv
exit: 0
