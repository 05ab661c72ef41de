args: compare examples/edge-llama3.2-1b.ini --gpu Jetson-Orin-Nano-8GB,Jetson-Orin-NX-16GB,Jetson-AGX-Orin-64GB,L4 --sort token-energy --format json
exit: 0
