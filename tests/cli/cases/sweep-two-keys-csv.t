args: sweep examples/llama3-8b.ini --vary training.gpus=64..256x2 --vary gpu=H100-SXM,A100-SXM-80GB --format csv
exit: 0
