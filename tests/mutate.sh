#!/bin/sh
# mutate.sh [NAME...]: seed documented wrong formulas, one at a time, into
# a copy of the tree and report which tests catch each (make mutate).
#
# The copy (the files git tracks or would track, as they are in the
# working tree) is built once; then for every mutation of the list below
# (or only those named): its file is changed, the copy rebuilt with
# make -j2, the unit tests and the validation programs of make validate
# (validate, validate_serving) run, and the file restored.
# The CLI golden snapshots also run, for information only
# (MUTATE_CLI=0 skips them): a mutation counts as caught only when a unit
# test or the validation fails, as snapshots are regenerated with UPDATE=1.
#
# Each mutation names its file, the text it changes and the text that
# replaces it.  The text is found literally, with any run of blanks in it
# matching any run of white space (or none), and must occur exactly once:
# a mutation whose text is not found, or found twice, is reported as
# "PATTERN NOT FOUND" (the code moved or changed: update the list), and
# the script fails.  It also fails when the unmutated copy does not pass,
# or when a mutation is not caught.  Prints a table (Markdown) at the end;
# specs/validation.md records it.  MUTATE_KEEP=1 keeps the copy.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=${MUTATE_JOBS:-2}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/capplan-mutate.XXXXXX")
if [ "${MUTATE_KEEP:-0}" = 1 ]; then
	echo "mutate: the copy stays in $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi
tree=$tmp/tree
mkdir "$tree"

# NAME|FILE|TEXT|REPLACEMENT|what is wrong (each about 10-20% off)
list() {
	cat <<'EOF'
tp-allreduce|src/model/model_layer.c|2.0 * comm_allreduce_s(&tl, act_bytes, c->tp)|0.85 * 2.0 * comm_allreduce_s(&tl, act_bytes, c->tp)|training TP all-reduce time x0.85
dp-grad-bytes|src/model/model_train.c|grad_comm_bytes_per_param = 4.0|grad_comm_bytes_per_param = 3.4|data-parallel gradient bytes 4 -> 3.4
tile-overhead|src/model/model_kernel.c|gemm_tile_overhead_k = 64.0|gemm_tile_overhead_k = 256.0|GEMM tile overhead 64 -> 256 steps of K
prefill-causal|src/model/model_infer.c|0.5 * p * p|0.6 * p * p|prefill attention fraction 0.5 -> 0.6
decode-kv-read|src/model/model_infer.c|double kv_read = b * ctx *|double kv_read = 0.85 * b * ctx *|decode KV-cache read x0.85
decode-weights|src/model/model_infer.c|layer_gemms(d, a, c, b, c->batch, wb, &layer)|layer_gemms(d, a, c, b, c->batch, 0.9 * wb, &layer)|decode weight reads x0.9
infer-allreduce|src/model/model_infer.c|2.0 * comm_allreduce_s(&l, n * a->hidden * act_bytes, c->tp)|1.8 * comm_allreduce_s(&l, n * a->hidden * act_bytes, c->tp)|serving TP all-reduces 2 -> 1.8 per layer
kv-identity|src/model/model_infer.c|return a->layers * arch_kv_elems_per_token_layer(a) *|return 0.85 * a->layers * arch_kv_elems_per_token_layer(a) *|KV-cache bytes per token x0.85
ring-allreduce|src/model/model_comm.c|return ring_s(l, bytes, n, 2.0);|return ring_s(l, bytes, n, 1.8);|ring all-reduce 2 -> 1.8 passes
nvlink-eff|src/model/model_comm.c|intra_node_eff = 0.78|intra_node_eff = 0.70|achievable NVLink share 0.78 -> 0.70
pp-sends|src/model/model_train.c|return 2.0 * c->vp * comm_p2p_s(|return 2.2 * c->vp * comm_p2p_s(|pipeline sends x1.1
bubble|src/model/model_train.c|return fill_s + (c->pp - 1.0) * p2p_mb / c->vp;|return 1.1 * (fill_s + (c->pp - 1.0) * p2p_mb / c->vp);|pipeline bubble x1.1
zero3-gather|src/model/model_train.c|double mb = 2.0 * comm_allgather_s(&l, weights, n)|double mb = 1.8 * comm_allgather_s(&l, weights, n)|ZeRO-3 weight gathers 2 -> 1.8 per micro-batch
moe-alltoall|src/model/model_layer.c|*a2a_s = comm_alltoall_s(|*a2a_s = 0.8 * comm_alltoall_s(|MoE dispatch all-to-all x0.8
optimizer|src/model/model_train.c|adam_step_bytes_per_param = 42.0|adam_step_bytes_per_param = 37.8|Adam step bytes 42 -> 37.8
train-causal|src/model/model_layer.c|causal_fraction = 0.5|causal_fraction = 0.55|training flash-attention causal fraction 0.5 -> 0.55
flash-bwd-ratio|src/model/model_layer.c|flash_bwd_flops_ratio = 2.5|flash_bwd_flops_ratio = 2.25|flash-attention backward FLOPs 2.5 -> 2.25 x forward
flash-fwd-eff|src/model/model_kernel.c|flash_fwd_rel_eff = 0.85|flash_fwd_rel_eff = 0.765|flash-attention forward efficiency x0.9
flash2-rate|src/model/model_kernel.c|flash2_fwd_flops_per_sm = 298e12 / 132.0|flash2_fwd_flops_per_sm = 328e12 / 132.0|FlashAttention-2 forward rate per SM x1.1
sustained-fraction|src/model/model_kernel.c|in_training_fraction = 0.85|in_training_fraction = 0.935|in-training GEMM fraction 0.85 -> 0.935
elementwise|src/model/model_layer.c|double norm = tokens * h * 4.0 / rep;|double norm = tokens * h * 4.4 / rep;|training norm traffic 4 -> 4.4 bytes per element
reserve|src/model/model_memory.c|reserve_fraction = 0.05;|reserve_fraction = 0.055;|memory reserve 5% -> 5.5% of capacity
sim-kv-read|src/model/model_infer.c|layer.s += fmax(ctx * kv_token /|layer.s += fmax(0.85 * ctx * kv_token /|simulated serving step: decode KV read x0.85
sim-prompt-attn|src/model/model_infer.c|x->prefill_attn_pairs / ep * per_pair|1.2 * x->prefill_attn_pairs / ep * per_pair|simulated serving step: prompt attention x1.2
gather-eff|src/model/model_recsys.c|activation_bytes = 128.0;|activation_bytes = 96.0;|embedding row's page activation 128 -> 96 bytes
sparse-grad|src/model/model_recsys.c|sparse_grad_passes = 5.0;|sparse_grad_passes = 4.0;|sparse-gradient passes per lookup 5 -> 4
deal-cap|src/model/model_recsys.c|cap = (n + b - 1) / b;|cap = n;|listed tables dealt without the ceil(T/G) tables-per-GPU cap
wide-state|src/model/model_recsys.c|ftrl_state_bytes = 8.0;|ftrl_state_bytes = 4.0;|wide part's FTRL state 8 -> 4 bytes a weight
tile-time|src/model/model_kernel.c|gemm_tile_overhead_s = 1.0e-6|gemm_tile_overhead_s = 1.2e-6|GEMM tile overhead 1 -> 1.2 us (devices with an SM count)
tp-overlap|src/model/model_layer.c|hidden = fmin(rest, gemm_s * (t - 1.0) / t);|hidden = fmin(rest, 1.15 * gemm_s * (t - 1.0) / t);|TP comm overlap: 15% more GEMM time to hide behind
dp-bucket|src/model/model_train.c|dp_bucket_params = 40e6;|dp_bucket_params = 34e6;|data-parallel last bucket 40M -> 34M parameters
param-gather|src/model/model_train.c|gather_s = comm_overlapped_s(&l, gather_s * (1.0 - tail),|gather_s = 0.85 * comm_overlapped_s(&l, gather_s * (1.0 - tail),|ZeRO weight gather behind the forward x0.85
ce-bytes|src/model/model_layer.c|ce_fwd_bytes_per_logit = 38.0;|ce_fwd_bytes_per_logit = 33.0;|cross-entropy forward 38 -> 33 bytes per logit
fp8-casts|src/model/model_layer.c|count * m * n * 4.0);|count * m * n * 3.4);|fp8 output-gradient cast 4 -> 3.4 bytes per element
recompute-mla|src/model/model_memory.c|inside -= e * arch_attn_up_proj_elems(a);|inside -= 0.85 * e * arch_attn_up_proj_elems(a);|MLA up-projection recompute frees x0.85 of its activations
ep-overlap|src/model/model_layer.c|lc->a2a_s = 0.5 * comm_overlapped_s(&el, 2.0 * lc->a2a_s,|lc->a2a_s = 0.45 * comm_overlapped_s(&el, 2.0 * lc->a2a_s,|DualPipe all-to-all overlap 0.5 -> 0.45 of the exposed pair
offload-d2h|src/model/model_train.c|offload_d2h_bytes_per_param = 4.0|offload_d2h_bytes_per_param = 3.4|optimizer offload: gradient bytes to the host 4 -> 3.4
offload-host|src/model/model_memory.c|return 4.0 + (s.optimizer - master) + 4.0;|return 4.0 + (s.optimizer - master) + 3.4;|optimizer offload: host bytes per parameter 16 -> 15.4 (Adam)
offload-cpu|src/model/model_train.c|return node_gpus(c, cl) / cl->cpu_adam_params_per_s *|return 0.85 * node_gpus(c, cl) / cl->cpu_adam_params_per_s *|optimizer offload: CPU step x0.85
step-overhead|src/input/workload.h|#define WL_STEP_OVERHEAD_S (12.0 * WL_FRAMEWORK_OVERHEAD_S)|#define WL_STEP_OVERHEAD_S (10.2 * WL_FRAMEWORK_OVERHEAD_S)|training loop's host time 12 -> 10.2 framework calls a step
decode-fixed|src/model/model_infer.c|return (a->layers * (layer_kernels + 1.0) + 1.0) *|return 0.85 * (a->layers * (layer_kernels + 1.0) + 1.0) *|a decode step's kernel overheads x0.85
front-end|src/serve/serve_sim.c|s->fe_t[s->fe_tail++] = start + h;|s->fe_t[s->fe_tail++] = start + 0.85 * h;|the front end's time per request x0.85
EOF
}

# a name that is not in the list is an error, not an empty run
for n in "$@"; do
	if ! list | cut -d'|' -f1 | grep -qx -e "$n"; then
		echo "mutate: no mutation named '$n'; the list:" $(list | cut -d'|' -f1)
		exit 2
	fi
done

# apply FILE TEXT REPLACEMENT: prints the number of matches; changes the
# file only when there is exactly one
apply() {
	MUT_TEXT=$2 MUT_REPL=$3 perl -e '
		my $f = shift;
		open(my $h, "<", $f) or die "$f: $!\n";
		local $/;
		my $s = <$h>;
		close $h;
		my $pat = join("\\s*", map { quotemeta } split(/\s+/, $ENV{MUT_TEXT}));
		my @m;
		while ($s =~ /$pat/g) { push @m, [$-[0], $+[0]]; }
		print scalar(@m), "\n";
		exit 0 if @m != 1;
		substr($s, $m[0][0], $m[0][1] - $m[0][0]) = $ENV{MUT_REPL};
		open($h, ">", $f) or die "$f: $!\n";
		print $h $s;
		close $h;
	' "$1"
}

# the binaries the suites need: every validation program of make
# validate (validate, and validate_serving where the tree has it)
units=$(cd "$root" && ls tests/unit/test_*.c | sed 's|tests/unit/\(.*\)\.c|build/tests/\1|')
validators=
build() {
	make -C "$tree" -j"$jobs" --no-print-directory build/capplan \
		$validators $units >"$tmp/build.log" 2>&1
}

# run the suites in the copy; print the failing ones, "unit:NAME",
# "validate", "cli"
suites() {
	(
		cd "$tree" || exit 2
		for t in $units; do
			"./$t" >/dev/null 2>&1 || echo "unit:${t##*/}"
		done
		for v in $validators; do
			"./$v" tests/validation >/dev/null 2>&1 ||
				echo "validate:${v##*/}"
		done
		if [ "${MUTATE_CLI:-1}" = 1 ]; then
			sh tests/cli/run.sh build/capplan >/dev/null 2>&1 ||
				echo cli
		fi
	)
}

echo "mutate: copying the tree to $tree"
(cd "$root" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\n" "$f"; done' sh) \
	>"$tmp/files"
(cd "$root" && tar -cf - -T "$tmp/files") | (cd "$tree" && tar -xf -)
# the validation programs the Makefile knows how to build
for v in $(cd "$tree" && ls tests/validation/validate*.c | sed 's|tests/validation/\(.*\)\.c|build/tests/\1|'); do
	make -C "$tree" -n "$v" >/dev/null 2>&1 && validators="$validators $v"
done
echo "mutate: building the unmutated copy (validation:$validators)"
if ! build; then
	tail -20 "$tmp/build.log"
	echo "mutate: the unmutated copy does not build"
	exit 2
fi
base=$(suites)
if [ -n "$base" ]; then
	echo "mutate: the unmutated copy fails:" $base
	exit 2
fi

status=0
: >"$tmp/table"
list | while IFS='|' read -r name file text repl what; do
	if [ $# -gt 0 ]; then
		want=0
		for n in "$@"; do [ "$n" = "$name" ] && want=1; done
		[ $want = 1 ] || continue
	fi
	cp "$tree/$file" "$tmp/orig"
	n=$(apply "$tree/$file" "$text" "$repl")
	if [ "$n" != 1 ]; then
		echo "mutate: $name: PATTERN NOT FOUND: '$text' occurs $n times in $file"
		echo "| $name | $what | PATTERN NOT FOUND ($n matches) | | | ERROR |" >>"$tmp/table"
		echo error >>"$tmp/status"
		continue
	fi
	if ! build; then
		echo "mutate: $name: the mutated copy does not build:"
		grep -m 5 error "$tmp/build.log"
		echo "| $name | $what | does not build | | | ERROR |" >>"$tmp/table"
		echo error >>"$tmp/status"
		cp "$tmp/orig" "$tree/$file"
		continue
	fi
	failed=$(suites)
	cp "$tmp/orig" "$tree/$file"
	unit=$(echo "$failed" | sed -n 's/^unit://p' | tr '\n' ' ' | sed 's/ $//')
	val=$(echo "$failed" | sed -n 's/^validate://p' | tr '\n' ' ' | sed 's/ $//')
	cli=-
	if [ "${MUTATE_CLI:-1}" = 1 ]; then
		cli=passes
		echo "$failed" | grep -qx cli && cli=fails
	fi
	if [ -n "$unit" ] || [ -n "$val" ]; then
		verdict=caught
	else
		verdict="NOT CAUGHT"
		echo miss >>"$tmp/status"
	fi
	[ -n "$unit" ] || unit="none"
	[ -n "$val" ] && val="$val fails" || val=passes
	echo "mutate: $name: $verdict (unit: $unit; validation: $val; cli $cli)"
	echo "| $name | $what | $unit | $val | $cli | $verdict |" >>"$tmp/table"
done
echo
echo "| mutation | wrong formula | unit tests that fail | validation (make validate) | CLI snapshots | with snapshots excluded |"
echo "|---|---|---|---|---|---|"
cat "$tmp/table"
if [ -s "$tmp/status" ] 2>/dev/null; then
	status=1
	grep -q error "$tmp/status" && echo "mutate: some mutations could not be applied (see above)"
	grep -q miss "$tmp/status" && echo "mutate: some mutations were not caught"
fi
exit $status
