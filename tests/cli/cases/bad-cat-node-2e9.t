args: train --catalog tests/cli/data/cat-node-2e9.csv examples/llama3-8b.ini --gpu X1
exit: 3
