#!/bin/sh
# run.sh BIN: CLI golden tests.  Each tests/cli/cases/NAME.t holds
#   args: ARGUMENTS...          (split on blanks; run from the repo root)
#   exit: STATUS
# and NAME.out / NAME.err hold the expected stdout and stderr.  With
# UPDATE=1 the expected files are rewritten from the current output;
# CASES=GLOB (e.g. 'compare-*') runs only the matching cases.
# Prints "N passed, M failed" and exits 1 when any case fails.
set -u
bin=$1
dir=$(dirname "$0")/cases
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
for t in "$dir"/${CASES:-*}.t; do
	name=$(basename "$t" .t)
	args=$(sed -n 's/^args: //p' "$t")
	want=$(sed -n 's/^exit: //p' "$t")
	# shellcheck disable=SC2086
	"$bin" $args >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$tmp/out" "$dir/$name.out"
		cp "$tmp/err" "$dir/$name.err"
		sed -i "s/^exit: .*/exit: $got/" "$t"
		want=$got
	fi
	ok=1
	if [ "$got" != "$want" ]; then
		echo "FAIL $name: exit $got, expected $want"
		ok=0
	fi
	if ! cmp -s "$tmp/out" "$dir/$name.out"; then
		echo "FAIL $name: stdout differs"
		diff -u "$dir/$name.out" "$tmp/out" | head -20
		ok=0
	fi
	if ! cmp -s "$tmp/err" "$dir/$name.err"; then
		echo "FAIL $name: stderr differs"
		diff -u "$dir/$name.err" "$tmp/err" | head -20
		ok=0
	fi
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "cli: $pass passed, $fail failed"
[ $fail = 0 ]
