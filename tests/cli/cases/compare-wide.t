args: compare examples/llama3-70b.ini --gpu H100-SXM,B200,MI300X --wide
exit: 0
