args: train tests/cli/data/wl-1t.ini --gpu H100-SXM --gpus 16384 --search --top 3
exit: 0
