args: sweep examples/llama3-8b.ini --gpu H100-SXM --vary inference.ttft=1s,2s
exit: 2
