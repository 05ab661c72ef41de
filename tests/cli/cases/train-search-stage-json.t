args: train examples/llama3-405b.ini --gpu H100-SXM --search --top 2 --format json
exit: 0
