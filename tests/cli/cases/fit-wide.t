args: fit examples/llama3-70b.ini --gpu H100-SXM,B200 --wide
exit: 0
