args: size examples/llama3-8b-mixed.ini --mixed --gpu A40,H20,MI300X --format csv
exit: 0
