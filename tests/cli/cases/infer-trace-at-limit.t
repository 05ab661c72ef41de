setup: awk 'BEGIN { print "arrival_s,prompt_tokens,output_tokens"; for (i = 0; i < 50000; i++) printf "%.2f,%d,%d\n", (50000 - i) / 20, 100 + i % 900, 50 + i % 450 }' >$T/t.csv
args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.qps=0 --set inference.replicas=3 --set inference.trace=$T/t.csv --format csv
exit: 0
