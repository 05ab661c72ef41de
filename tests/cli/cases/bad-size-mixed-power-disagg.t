args: size examples/llama3-8b-disagg.ini --mixed --gpu H100-SXM,H20 --power-cap 1MW
exit: 2
