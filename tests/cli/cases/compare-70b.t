args: compare examples/llama3-70b-serving.ini --gpus 512 --gpu A100-SXM-80GB,H100-SXM,H200-SXM,B200,MI300X,L40S
exit: 0
