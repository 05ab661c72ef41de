args: compare examples/llama3-8b-l4.ini --gpus 64 --gpu L4,L40S,A10,H100-SXM,A100-SXM-80GB --sort token-cost
exit: 0
