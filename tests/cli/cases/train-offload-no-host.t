args: train examples/llama3-8b.ini --gpu H100-PCIe --set training.offload_optimizer=true
exit: 1
