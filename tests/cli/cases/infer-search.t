args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --search --top 6
exit: 0
