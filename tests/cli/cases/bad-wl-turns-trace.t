args: infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.qps=0 --set inference.trace=tests/cli/data/trace-chat.csv --set inference.turns=2
exit: 3
