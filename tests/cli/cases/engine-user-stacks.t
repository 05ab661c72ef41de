args: infer examples/llama3-70b-serving.ini --gpu H100-SXM --stacks tests/cli/data/stacks-ok.csv --set inference.engine=ourvllm
exit: 0
