args: train tests/cli/data/wl-kv-heads.ini --gpu A100-SXM-80GB
exit: 3
