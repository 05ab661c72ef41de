args: compare examples/dlrm-criteo.ini --catalog tests/cli/data/cat-rent-serving.csv --gpus 8
exit: 0
