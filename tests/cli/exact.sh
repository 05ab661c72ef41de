#!/bin/sh
# Issue 43's exactness check: the pruned 'infer --search' (candidates whose
# fewest GPUs exceed the k-th fleet are not sized) shows the same k
# cheapest configurations as the exhaustive search (--top past every
# candidate) on random small serving workloads.
# usage: exact.sh BIN [CASES]
set -u
BIN=$1
CASES=${2:-12}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pruned=0
i=1
while [ "$i" -le "$CASES" ]; do
	# a Llama-like model of 1-14B, a Poisson rate, lengths and targets
	awk -v seed="$i" 'BEGIN {
		srand(seed);
		layers = 16 + 4 * int(rand() * 7);
		hidden = 2048 * (1 + int(rand() * 3));
		heads = hidden / 128;
		qps = 2 + int(rand() * 40);
		prompt = 128 * (1 + int(rand() * 16));
		out = 32 * (1 + int(rand() * 8));
		ttft = 200 + 100 * int(rand() * 8);
		tpot = 20 + 10 * int(rand() * 5);
		printf "[model]\nname = m%d\nlayers = %d\nhidden = %d\n", seed, layers, hidden;
		printf "heads = %d\nkv_heads = 8\nffn_hidden = %d\n", heads, 3.5 * hidden;
		printf "gated_ffn = true\nvocab = 32000\nseq_len = 8192\n\n";
		printf "[inference]\nprompt_tokens = %d\noutput_tokens = %d\n", prompt, out;
		printf "qps = %d\nttft_slo = %dms\ntpot_slo = %dms\n", qps, ttft, tpot;
		printf "percentile = p99\nrequests = 400\n";
	}' > "$T/w$i.ini"
	for gpu in L4 H100-SXM; do
		"$BIN" infer "$T/w$i.ini" --gpu "$gpu" --search --top 3 \
			--format csv > "$T/top3.csv" 2> "$T/err3"
		rc3=$?
		"$BIN" infer "$T/w$i.ini" --gpu "$gpu" --search --top 40 \
			--format csv > "$T/all.csv" 2> "$T/errall"
		rca=$?
		head -n 4 "$T/all.csv" > "$T/all3.csv"
		if [ "$rc3" -ne "$rca" ] || ! cmp -s "$T/top3.csv" "$T/all3.csv"; then
			echo "FAIL case $i on $gpu: the pruned search differs"
			cat "$T/w$i.ini"
			diff "$T/top3.csv" "$T/all3.csv"
			fail=1
		fi
		"$BIN" infer "$T/w$i.ini" --gpu "$gpu" --search --top 3 \
			--format json 2>/dev/null |
			grep -q '"configs_not_sized":	[1-9]' && pruned=$((pruned + 1))
	done
	i=$((i + 1))
done
# the check must have something to check: some searches pruned
if [ "$pruned" -eq 0 ]; then
	echo "FAIL no search left a configuration unsized"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "exact: $CASES workloads x 2 devices, pruned and exhaustive searches agree ($pruned pruned)"
exit "$fail"
