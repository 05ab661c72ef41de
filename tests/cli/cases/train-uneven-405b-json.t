args: train examples/llama3-405b.ini --gpu H100-SXM --format json
exit: 0
