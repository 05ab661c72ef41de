args: train examples/llama3-8b.ini --gpu H100-PCIe --set cluster.pricing=owned
exit: 3
