args: infer --catalog tests/cli/data/cat-node-max.csv examples/llama3-8b.ini --gpu X1
exit: 0
