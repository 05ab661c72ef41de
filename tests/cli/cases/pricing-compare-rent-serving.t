args: compare examples/llama3-70b-serving.ini --catalog tests/cli/data/cat-rent-serving.csv --gpus 8
exit: 0
