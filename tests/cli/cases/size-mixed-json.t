args: size examples/llama3-8b-mixed.ini --mixed --gpu L4,A40,RTX-6000-Ada,H20,MI300X --format json
exit: 0
