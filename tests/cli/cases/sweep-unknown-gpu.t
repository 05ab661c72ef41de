args: sweep examples/llama3-8b.ini --vary gpu=H100-SXM,H100X
exit: 2
