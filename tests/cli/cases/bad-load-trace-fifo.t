setup: mkfifo $T/trace.csv
args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.qps=0 --set inference.trace=$T/trace.csv
exit: 4
