args: compare examples/llama3-8b.ini --catalog tests/cli/data/cat-price-basis.csv --gpus 64 --format json
exit: 0
