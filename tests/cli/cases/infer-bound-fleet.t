args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.replicas=600000 --set inference.tp=32 --set cluster.gpus_per_node=32
exit: 1
