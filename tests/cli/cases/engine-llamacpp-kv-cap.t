args: infer examples/edge-llama3.2-1b.ini --gpu Jetson-AGX-Orin-64GB --set inference.engine=llama.cpp --set inference.prompt_tokens=6000
exit: 1
