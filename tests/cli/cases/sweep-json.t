args: sweep examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --vary inference.weight_precision=bf16,fp8 --format json
exit: 0
