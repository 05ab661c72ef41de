#!/bin/sh
# tables.sh BIN: the default tables of the commands keep within 100
# columns, --wide shows the columns they leave out, one unit per column,
# scientific notation in a table only below 0.001 (in a column of values
# below 0.01, some below 0.001: every cell) and no number with three
# zeros after the point (CSV and JSON keep full precision).  Ends with
# "tables: N passed, M failed".
set -u
# the width of a table is $COLUMNS's where it is set: these are 100
unset COLUMNS
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {
	if eval "$2"; then pass=$((pass + 1)); else
		echo "FAIL $1"
		fail=$((fail + 1))
	fi
}
# the longest line of a file
longest() { awk '{ if (length > m) m = length } END { print m + 0 }' "$1"; }

wl=examples/llama3-70b.ini
serve=examples/llama3-70b-serving.ini
n=0
while IFS='|' read -r name args; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	"$bin" $args >"$tmp/$n.out" 2>/dev/null
	rc=$?
	w=$(longest "$tmp/$n.out")
	check "$name: status $rc, at most 100 columns (got $w)" \
		'[ $rc -le 1 ] && [ -s "$tmp/$n.out" ] && [ $w -le 100 ]'
	check "$name: scientific notation only below 0.01, short" \
		'! grep -Eq "[0-9]e(\+|-0|-[12]([^0-9]|$))" "$tmp/$n.out"'
	check "$name: no number with three zeros after the point" \
		'! grep -Eq "(^|[^0-9.])0\.000[0-9]*[1-9]" "$tmp/$n.out"'
	check "$name: no blank at the end of a line" \
		'! grep -q " $" "$tmp/$n.out"'
done <<LIST
compare|compare $wl
compare serving|compare $serve
fit|fit $wl
catalog|catalog
stacks|stacks
size|size $wl --deadline 60d
size serving|size $serve --deadline 60d
train|train $wl --gpu H100-SXM --gpus 1024
train --search|train $wl --gpu H100-SXM --gpus 1024 --search
infer|infer $serve --gpu H100-SXM
infer dlrm|infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB
sweep|sweep examples/llama3-8b.ini --vary training.gpus=64..1024x2 --vary gpu=H100-SXM,A100-SXM-80GB
compare dlrm|compare examples/dlrm-criteo.ini
compare resnet50 onnx|compare examples/resnet50-onnx.ini
compare efficientnet onnx|compare examples/efficientnet-b0-onnx.ini --sort sample-cost
compare resnet50 params|compare examples/resnet50-imagenet.ini --set inference.qps=1e5 --set inference.ttft_slo=20ms
size dlrm|size examples/dlrm-criteo.ini --deadline 10min
size resnet50 serving|size examples/resnet50-onnx.ini --deadline 1h --set inference.qps=1e6 --set inference.ttft_slo=10ms
sweep resnet50 batch|sweep examples/resnet50-onnx.ini --gpu H100-SXM --vary inference.batch=1..4096x4
size --mixed|size examples/llama3-8b-mixed.ini --mixed --gpu L4,A40,RTX-6000-Ada,H20,MI300X
LIST

# --wide: every column, the line that names the others goes
"$bin" compare $wl >"$tmp/narrow" 2>/dev/null
"$bin" compare $wl --wide >"$tmp/wide" 2>/dev/null
check "compare: a line names the columns left out" \
	'grep -q "^(--wide adds [0-9]* columns: .*energy" "$tmp/narrow"'
check "compare --wide: wider, every column, no such line" \
	'[ $(longest "$tmp/wide") -gt 100 ] && ! grep -q "^(--wide adds" "$tmp/wide" && grep -q "J/token" "$tmp/wide"'
# one unit per column: every time in the column is in the unit of its
# heading, a bare number
check "compare: time in one unit, named in the heading" \
	'grep -q "time (y)" "$tmp/narrow" && ! sed "/^$/q" "$tmp/narrow" | grep -Eq "[0-9](min|h|d|y) "'
# size: an infeasible row says why in place of its empty cells
"$bin" size $wl --deadline 60d >"$tmp/size" 2>/dev/null
check "size: an infeasible row gives its reason in the row" \
	'grep -Eq "^T4 +fastest is [0-9.]+[a-z]+ on [0-9]+ GPUs( \(more no faster at batch [0-9]+\))?$" "$tmp/size"'
# compare: a row that cannot train says why; cp shown where used (given
# here, so that the check does not hang on what the search prefers; no
# optimizer offload, with which H100-SXM would hold the model)
"$bin" compare $wl --gpu B200,H100-SXM --set training.cp=2 \
	--set training.offload_optimizer=false >"$tmp/cmp" 2>/dev/null
check "compare: status columns and cp where used" \
	'grep -Eq "^H100-SXM +memory " "$tmp/cmp" && grep -Eq "^B200 +ok .* cp2 " "$tmp/cmp"'
# the machine formats are the same with --wide and keep full precision
"$bin" infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB --format json >"$tmp/j1" 2>/dev/null
"$bin" infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB --format json --wide >"$tmp/j2" 2>/dev/null
check "json: the same with --wide, full precision kept" \
	'cmp -s "$tmp/j1" "$tmp/j2" && grep -Eq "[0-9]{6,}e-05" "$tmp/j1"'
# compare of a per-sample model: its columns, in samples, within 100
# columns; the rest with --wide
"$bin" compare examples/dlrm-criteo.ini --gpu H100-SXM,L4 >"$tmp/dlrm" 2>/dev/null
check "compare dlrm: per-sample columns" \
	'grep -q "samples/s/GPU" "$tmp/dlrm" && grep -q "latency (us)" "$tmp/dlrm" && grep -q "inf/s/GPU" "$tmp/dlrm" && grep -q "\$/M inf" "$tmp/dlrm" && ! grep -q "tp/pp/dp\|TPOT\|tok/s" "$tmp/dlrm"'
"$bin" compare examples/dlrm-criteo.ini --gpu H100-SXM,L4 --wide >"$tmp/dlrmw" 2>/dev/null
check "compare dlrm --wide: energy per million samples trained and served" \
	'grep -q "energy/M (J)" "$tmp/dlrmw" && grep -q "energy/M inf (J)" "$tmp/dlrmw"'
# numbers below 0.001: scientific, three digits (a record's, a column's)
"$bin" infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB >"$tmp/small" 2>/dev/null
check "infer dlrm: a small cost and energy in scientific notation" \
	'grep -Eq "^  cost per million samples +[$][1-9]\.[0-9]{1,2}e-[0-9]+$" "$tmp/small" && grep -Eq "^  energy per sample \(J\) +[1-9](\.[0-9]{1,2})?e-[0-9]+$" "$tmp/small"'
check "compare dlrm: a column of small costs in scientific notation" \
	'grep -Eq "^H100-SXM .* [1-9]\.[0-9]{2}e-[0-9]+$" "$tmp/dlrm"'
"$bin" compare $wl --gpu B200 --format csv >"$tmp/csv" 2>/dev/null
check "csv: no table-only column" \
	'head -1 "$tmp/csv" | grep -q "training.fits" && ! head -1 "$tmp/csv" | grep -q "train_status\|layout"'

echo "tables: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
