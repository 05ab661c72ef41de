args: fit examples/llama3-70b.ini --gpus 64 --gpu A100-SXM-80GB,H100-SXM,H200-SXM,MI300X,L40S
exit: 0
