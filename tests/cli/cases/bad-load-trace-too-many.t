setup: awk 'BEGIN { print "arrival_s,prompt_tokens,output_tokens"; for (i = 0; i < 50001; i++) printf "%.2f,512,128\n", i / 20 }' >$T/t.csv
args: infer examples/llama3-8b-fleet.ini --gpu A100-SXM-80GB --set inference.qps=0 --set inference.trace=$T/t.csv
exit: 3
