#!/bin/sh
# validate_serving.sh VALIDATE_SERVING DIR: the serving validation gates
# can fail.  Each check runs the program on a copy of DIR with one thing
# broken: the last row's measured value nan, inf, 0, negative or not a
# number; a header-only file; a row fewer.  Each must exit 1; the
# unbroken copy must pass.  Ends with "validate serving gates: N passed,
# M failed".
set -u
bin=$1
src=${2:-tests/validation}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
fresh() { rm -rf "$tmp/d"; mkdir -p "$tmp/d"; cp "$src/serving.csv" "$tmp/d/"; }
check() { # label expected-status pattern
	"$bin" "$tmp/d" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$2" ] && grep -q -e "$3" "$tmp/out"; then
		pass=$((pass + 1))
	else
		echo "FAIL $1: exit $rc (expected $2)"
		tail -3 "$tmp/out"
		fail=$((fail + 1))
	fi
}
fresh
check "the unbroken copy passes" 0 'serving targets met'
# the measured value is the field before the quoted note of each row
for v in nan inf 0 -0.5 abc; do
	fresh
	sed -i '$ s/,\([0-9.][0-9.]*\),"\([A-Z]\)/,'"$v"',"\2/' "$tmp/d/serving.csv"
	if tail -1 "$tmp/d/serving.csv" | grep -q ",$v,\""; then
		check "measured '$v' in the last row" 1 'FAIL'
	else
		echo "FAIL could not set the last row's measured value to '$v'"
		fail=$((fail + 1))
	fi
done
fresh
head -1 "$src/serving.csv" >"$tmp/d/serving.csv"
check "header only" 1 'rows, expected'
fresh
sed -i '$ d' "$tmp/d/serving.csv"
check "a row fewer" 1 'rows, expected'
echo "validate serving gates: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
