args: size examples/llama3-70b.ini --deadline 90d --gpu H100-SXM,A100-SXM-80GB,H200-SXM
exit: 0
