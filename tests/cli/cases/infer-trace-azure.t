args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.qps=0 --set inference.trace=tests/cli/data/trace-azure.csv
exit: 0
