args: sweep examples/llama3-70b-serving.ini --gpu H100-SXM --vary inference.engine=generic,vllm,sglang,trtllm --format csv
exit: 0
