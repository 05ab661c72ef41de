args: infer examples/llama3-70b-serving.ini --gpu T4 --search
exit: 1
