args: infer examples/llama3-70b-serving.ini --gpu B200 --search --top 4
exit: 0
