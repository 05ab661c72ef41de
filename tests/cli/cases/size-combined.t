args: size examples/llama3-8b.ini --deadline 30d --budget 2M --power-cap 1.2MW --gpu H100-SXM,A100-SXM-80GB,H200-SXM,L40S
exit: 0
