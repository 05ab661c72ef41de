args: compare examples/llama3-8b.ini --gpus 64 --format csv
exit: 0
