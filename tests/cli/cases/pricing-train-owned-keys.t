args: train examples/llama3-8b.ini --gpu H100-PCIe --gpus 64 --set cluster.pricing=owned --set cluster.capex_per_gpu=$31.4159K --set cluster.amortization_years=4.25 --set cluster.hosting_per_kw_month=163.7 --set cluster.pue=1.17 --set cluster.price_per_kwh=0.083 --set cluster.host_overhead=0.31 --format json
exit: 0
