args: size examples/llama3-8b-mixed.ini --mixed --gpu L40S,H100-SXM --power-cap 300W
exit: 1
