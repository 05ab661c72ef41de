args: size examples/llama3-8b-mixed.ini --mixed --gpu L40S,H100-SXM,A100-SXM-80GB --power-cap 3kW --format json
exit: 0
