args: fit examples/llama3-70b.ini --gpu H100-SXM,H100-PCIe --gpus 8 --set training.offload_optimizer=false
exit: 1
