args: infer examples/llama3-8b.ini --gpu L40S --set inference.engine=vllm --set inference.batch=256 --set inference.prompt_tokens=1024 --set inference.output_tokens=128
exit: 0
