args: catalog --gpus 4
exit: 2
