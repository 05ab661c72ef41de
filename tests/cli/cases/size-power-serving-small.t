args: size examples/llama3-8b-fleet.ini --gpu H100-SXM --power-cap 500W
exit: 1
