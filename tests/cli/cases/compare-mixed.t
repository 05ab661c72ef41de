args: compare examples/llama3-8b-mixed.ini --gpu L4,A40,RTX-6000-Ada,H20,MI300X
exit: 0
