args: sweep examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --vary cluster.pue=1.1..1.3+0.1 --format csv
exit: 0
