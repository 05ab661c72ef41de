setup: awk 'BEGIN { printf "{\"a\": "; for (i = 0; i < 1000; i++) printf "["; for (i = 0; i < 1000; i++) printf "]"; print "}" }' >$T/deep.json
args: fit --model $T/deep.json --gpu H100-SXM
exit: 3
