args: size examples/llama3-8b-fleet.ini --gpu H100-SXM,A100-SXM-80GB,L4 --power-cap 1MW
exit: 0
