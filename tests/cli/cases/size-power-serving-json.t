args: size examples/llama3-8b-fleet.ini --gpu H100-SXM --power-cap 100kW --format json
exit: 0
