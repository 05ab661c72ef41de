args: train examples/llama3-8b.ini --gpu H100-SXM --set cluster.hosting_per_kw_month=-10
exit: 2
