#!/bin/sh
# progress.sh BIN: the progress line of long work (issues 40 and 43).
# CAPPLAN_PROGRESS=1 draws it whatever stderr is, from the start and at
# every change (capplan(1), ENVIRONMENT): each command that can pass a
# second must draw at least one line with it, erase it at the end, and
# write byte for byte the same standard output (and files) as without it;
# without it, in a pipe, nothing is written to stderr; on a terminal
# (script(1)) CAPPLAN_PROGRESS=0 and CI keep it off.  A message printed
# while the work runs starts on a line of its own.
# Ends with "progress: N passed, M failed".
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset CAPPLAN_PROGRESS
pass=0
fail=0
check() {
	if eval "$2"; then pass=$((pass + 1)); else
		echo "FAIL $1"
		fail=$((fail + 1))
	fi
}
cr=$(printf '\r')
esc=$(printf '\033')

serve=examples/llama3-70b-serving.ini
# name | expected start of the line | arguments
while IFS='|' read -r name line args; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086 # the arguments split on blanks
	"$bin" $args >"$tmp/out0" 2>"$tmp/err0"
	rc0=$?
	# shellcheck disable=SC2086
	CAPPLAN_PROGRESS=1 "$bin" $args >"$tmp/out1" 2>"$tmp/err1"
	rc1=$?
	check "$name: the same status with and without the line ($rc0, $rc1)" \
		'[ $rc0 = $rc1 ]'
	check "$name: stdout byte for byte the same with the line" \
		'cmp -s "$tmp/out0" "$tmp/out1"'
	check "$name: nothing on stderr in a pipe" '[ ! -s "$tmp/err0" ]'
	check "$name: a progress line '$line' when forced" \
		'grep -q "${cr}${esc}\[K$line" "$tmp/err1"'
	check "$name: the line erased at the end" \
		'[ "$(tail -c 4 "$tmp/err1" | od -An -c | tr -d " ")" = "\\r033[K" ]'
done <<EOF
infer --search|infer: [0-9]*/[0-9]* configurations, sizing replicas|infer $serve --gpu H100-SXM --search
infer|infer: sizing replicas [0-9]*/[0-9]*|infer $serve --gpu H100-SXM
infer, infeasible|infer: [a-z ]*|infer $serve --gpu L4
size, serving|size: [0-9]*/[0-9]* devices served|size $serve --gpu H100-SXM,H200-SXM,L4
size, training|size: [0-9]*/[0-9]* devices trained, H100-SXM|size examples/llama3-8b.ini --gpu H100-SXM,A100-SXM-80GB --deadline 30d
compare|compare: [0-9]*/[0-9]* devices served|compare $serve --gpu H100-SXM,MI300X
sweep|sweep: [0-9]*/4 points|sweep $serve --gpu H100-SXM --vary inference.qps=5,10 --vary inference.engine=vllm,sglang
calibrate|calibrate: [0-9]*/[0-9]* measurements planned|calibrate examples/calibrate/measurements.csv
EOF

# the plan is the same with the hook (the unit test asserts it field by
# field); the JSON too
"$bin" infer $serve --gpu H100-SXM --format json >"$tmp/a.json" 2>/dev/null
CAPPLAN_PROGRESS=1 "$bin" infer $serve --gpu H100-SXM --format json \
	>"$tmp/b.json" 2>/dev/null
check "infer --format json: the same plan with the line" \
	'cmp -s "$tmp/a.json" "$tmp/b.json"'

# charts: the line names the chart and the device; the chart is the same;
# a note printed meanwhile starts on a line of its own
if command -v gnuplot >/dev/null 2>&1; then
	"$bin" plot replicas $serve --gpu H100-SXM,L4 -o "$tmp/r0.svg" \
		2>"$tmp/err0"
	CAPPLAN_PROGRESS=1 "$bin" plot replicas $serve --gpu H100-SXM,L4 \
		-o "$tmp/r1.svg" 2>"$tmp/err1"
	check "plot: the same chart with the line" \
		'cmp -s "$tmp/r0.svg" "$tmp/r1.svg"'
	check "plot: the line names the chart and the device" \
		'grep -q "plot: replicas, device 1/2 H100-SXM" "$tmp/err1"'
	check "plot: a note erases the line first" \
		'grep -q "${cr}${esc}\[Kcapplan: note: nothing drawn for '"'"'L4'"'"'" "$tmp/err1"'
	check "plot: the note alone without the line" \
		'grep -q "^capplan: note: nothing drawn for '"'"'L4'"'"'" "$tmp/err0" && ! grep -q "$cr" "$tmp/err0"'
	CAPPLAN_PROGRESS=1 "$bin" compare $serve --gpu H100-SXM --plot \
		"$tmp/charts" >/dev/null 2>"$tmp/err1"
	check "compare --plot: the charts counted, each 'wrote' on a line of its own" \
		'grep -q "compare: [0-9]*/[0-9]* charts" "$tmp/err1" && grep -q "${cr}${esc}\[Kcapplan: wrote $tmp/charts/replicas.svg" "$tmp/err1"'
else
	echo "SKIP progress: gnuplot not found: the chart checks skipped"
fi

# on a terminal (script(1) gives one): off with CAPPLAN_PROGRESS=0 and in
# CI; forced, drawn there too
if command -v script >/dev/null 2>&1; then
	a="'$bin' infer $serve --gpu H100-SXM --search >/dev/null"
	env -u CI CAPPLAN_PROGRESS=0 script -qec "$a" /dev/null >"$tmp/tty" 2>&1
	check "CAPPLAN_PROGRESS=0: nothing on a terminal" '[ ! -s "$tmp/tty" ]'
	CI=true script -qec "$a" /dev/null >"$tmp/tty" 2>&1
	check "CI: nothing on a terminal" '[ ! -s "$tmp/tty" ]'
	env -u CI CAPPLAN_PROGRESS=1 script -qec "$a" /dev/null >"$tmp/tty" 2>&1
	check "CAPPLAN_PROGRESS=1: drawn on a terminal" \
		'grep -q "infer: [0-9]*/[0-9]* configurations" "$tmp/tty"'
else
	echo "SKIP progress: script(1) not found: the terminal checks skipped"
fi

echo "progress: $pass passed, $fail failed"
[ $fail = 0 ]
