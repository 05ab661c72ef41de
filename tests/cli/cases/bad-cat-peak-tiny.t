args: train --catalog tests/cli/data/cat-peak-tiny.csv examples/llama3-8b.ini --gpu X1
exit: 3
