#!/bin/sh
# validate.sh VALIDATE DIR: the validation gates can fail.  Each check
# runs the validate program on a copy of DIR (tests/validation) with one
# thing broken: a measured value that is nan, inf, zero, negative or not
# a number; a header-only, empty, truncated or grown file; a row moved to
# another metric class; a missing file; predictions that are NaN or a
# few per cent off.  Every one must exit non-zero with a message; the
# unbroken copy must pass.  Ends with "validate gates: N passed, M failed".
set -u
bin=$1
src=${2:-tests/validation}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
# the files the program reads (other files of DIR have their own checks)
files=$("$bin" --list | cut -d' ' -f1)
[ -n "$files" ] || { echo "FAIL '$bin --list' names no file"; exit 1; }

# fresh copy of the data in $tmp/d
fresh() { rm -rf "$tmp/d"; cp -r "$src" "$tmp/d"; }
# expect LABEL STATUS PATTERN: the last run's status and output
expect() {
	if [ "$rc" -eq "$2" ] && grep -q -e "$3" "$tmp/out"; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: exit $rc (expected $2), output:"
		grep -e '^FAIL' -e 'validate:' "$tmp/out" | head -5
		fail=$((fail + 1))
	fi
}
run() { "$bin" "$@" >"$tmp/out" 2>&1; rc=$?; }
# set_cell FILE ROW COLUMN VALUE: ROW counts data rows from 1
set_cell() {
	n=$(head -1 "$1" | tr ',' '\n' | grep -nx "$3" | cut -d: -f1)
	if [ -z "$n" ]; then
		echo "FAIL $1 has no column '$3'"
		fail=$((fail + 1))
		return 1
	fi
	awk -F, -v OFS=, -v r=$(($2 + 1)) -v n="$n" -v v="$4" \
		'NR == r { $n = v } { print }' "$1" >"$1.new" && mv "$1.new" "$1"
}

fresh
run "$tmp/d"
expect "the unbroken copy passes" 0 'all accuracy targets met'

for f in $files; do
	rows=$(($(wc -l <"$src/$f") - 1))
	for v in nan NaN inf -inf 0 -1.5; do
		fresh
		set_cell "$tmp/d/$f" "$rows" measured "$v" || continue
		run "$tmp/d"
		expect "$f: measured '$v' in the last row" 1 'measured value must be a finite positive number'
	done
	for v in '' abc 12x; do
		fresh
		set_cell "$tmp/d/$f" 1 measured "$v" || continue
		run "$tmp/d"
		expect "$f: measured '$v'" 2 "'measured' must be a number"
	done
	fresh
	head -1 "$src/$f" >"$tmp/d/$f"
	run "$tmp/d"
	expect "$f: header only" 1 "$f: 0 rows, expected $rows"
	fresh
	: >"$tmp/d/$f"
	run "$tmp/d"
	expect "$f: empty" 2 'is not a well-formed table'
	fresh
	sed '$d' "$src/$f" >"$tmp/d/$f"
	run "$tmp/d"
	expect "$f: last row missing" 1 "$f: $((rows - 1)) rows, expected $rows"
	fresh
	tail -1 "$src/$f" >>"$tmp/d/$f"
	run "$tmp/d"
	expect "$f: a row twice" 1 "$f: $((rows + 1)) rows, expected $rows"
	fresh
	set_cell "$tmp/d/$f" 1 metric no_such_metric || continue
	run "$tmp/d"
	expect "$f: unknown metric" 2 "unknown metric\|belongs to no gated class"
	fresh
	rm "$tmp/d/$f"
	run "$tmp/d"
	expect "$f: missing" 2 "cannot read"
done

# a row moved to another class: the KV-cache identity row timed as a
# decode step leaves the identity class empty
fresh
set_cell "$tmp/d/inference.csv" 7 metric tpot_s
run "$tmp/d"
expect "inference.csv: a row moved to another class" 1 "class 'identity: KV cache per token' has 0 rows"

# predictions that are not finite, or off by a few per cent
fresh
for s in nan inf 1.03 0.97; do
	run --scale-predictions=$s "$tmp/d"
	expect "predictions scaled by $s" 1 'gates\{0,1\} failed'
done
run --scale-predictions=nan "$tmp/d"
expect "a NaN prediction is named" 1 'the prediction is not finite'

# usage
run
expect "no folder" 2 usage
run --scale-predictions=x "$tmp/d"
expect "a bad factor" 2 "bad '--scale-predictions=x'"

echo "validate gates: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
