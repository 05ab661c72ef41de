#!/bin/sh
# edges.sh BIN: numbers at the edges.  Every numeric workload key and
# catalog column gets 1e308, 1e-320, 0, -1, nan, inf, integers whose
# doubling or products wrap an int (2^30 + 1, INT_MAX, 2^31; issue 14)
# and an overflowing integer: capplan answers with a finite result (exit 0 or 1) or a clear
# error (exit 2 or 3 with a message), never a crash, a hang, an internal
# error or a NaN/inf in its JSON.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() { # label, command...
	label=$1
	shift
	timeout 30 "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -gt 4 ]; then
		echo "FAIL $label: exit $rc: $(head -1 "$tmp/err")"
		fail=$((fail + 1))
	elif grep -qiE '(^|[^a-z])(nan|inf)([^a-z]|$)' "$tmp/out"; then
		echo "FAIL $label: non-finite number in the output"
		fail=$((fail + 1))
	elif [ $rc -ge 2 ] && [ ! -s "$tmp/err" ]; then
		echo "FAIL $label: exit $rc without a message"
		fail=$((fail + 1))
	else
		pass=$((pass + 1))
	fi
}
train_keys="model.layers model.hidden model.heads model.kv_heads model.ffn_hidden
 model.vocab model.seq_len model.params model.head_dim model.experts
 training.tokens training.global_batch training.micro_batch training.gpus
 training.tp training.pp training.vp training.cp training.zero training.ep
 cluster.gpus_per_node cluster.intra_bw cluster.inter_bw cluster.pue
 cluster.price_per_gpu_hour cluster.price_per_kwh cluster.host_overhead"
infer_keys="inference.prompt_tokens inference.output_tokens inference.batch
 inference.tp inference.ep inference.qps inference.ttft_slo inference.tpot_slo
 inference.power_cap"
values="1e308 1e-320 0 -1 nan inf 1073741825 2147483647 2147483648 99999999999"
ex=examples/llama3-8b.ini
for key in $train_keys; do
	for v in $values; do
		check "train $key=$v" "$bin" train $ex --gpu H100-SXM --gpus 64 \
			--set "$key=$v" --format json
	done
done
for key in $infer_keys; do
	for v in $values; do
		check "infer $key=$v" "$bin" infer examples/llama3-70b-serving.ini \
			--gpu H100-SXM --set "$key=$v" --format json
	done
done
# catalog columns: one H100 row with the value in one column
head -1 specs/catalog.csv >"$tmp/head"
grep '^H100-SXM,' specs/catalog.csv >"$tmp/row"
for col in memory:GB mem_bw:TB/s bf16:TFLOPS tdp:W idle_power:W \
	intra_bw:GB/s inter_bw:Gb/s price_usd_per_gpu_hour: matmul_eff: \
	mem_eff: gpus_per_node:; do
	name=${col%%:*}
	unit=${col#*:}
	n=$(tr ',' '\n' <"$tmp/head" | grep -nx "$name" | cut -d: -f1)
	for v in $values; do
		{ cat "$tmp/head"; awk -F, -v OFS=, -v n="$n" -v val="$v$unit" \
			'{ $n = val; print }' "$tmp/row"; } >"$tmp/cat.csv"
		check "catalog $name=$v$unit" "$bin" train $ex --gpu H100-SXM \
			--gpus 64 --catalog "$tmp/cat.csv" --format json
	done
done
echo "edges: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
