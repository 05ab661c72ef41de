args: size examples/llama3-8b.ini --power-cap 200kW --gpu H100-SXM,L40S
exit: 0
