args: size examples/llama3-8b-disagg.ini --mixed --gpu H100-SXM,A100-SXM-80GB,H20 --format json
exit: 0
