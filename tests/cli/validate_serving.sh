#!/bin/sh
# validate_serving.sh VALIDATE_SERVING DIR: the serving validation gates
# can fail.  Each check runs the program on a copy of DIR's three serving
# files with one thing broken in one of them (serving.csv, the fitted
# rows, serving-holdout.csv or serving-prefix.csv, the prefix-cache
# rows): the last row's measured value nan, inf,
# 0, negative or not a number; a header-only file; a row fewer; the file
# missing.  Each must exit 1; the unbroken copy must pass.  Ends with
# "validate serving gates: N passed, M failed".
set -u
bin=$1
src=${2:-tests/validation}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
files="serving.csv serving-holdout.csv serving-prefix.csv"
fresh() {
	rm -rf "$tmp/d"
	mkdir -p "$tmp/d"
	for f in $files; do cp "$src/$f" "$tmp/d/"; done
}
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
for f in $files; do
	# the measured value is the field before the quoted note of each row
	for v in nan inf 0 -0.5 abc; do
		fresh
		sed -i '$ s/,\([0-9.][0-9.]*\),"\([A-Z]\)/,'"$v"',"\2/' "$tmp/d/$f"
		if tail -1 "$tmp/d/$f" | grep -q ",$v,\""; then
			check "$f: measured '$v' in the last row" 1 'FAIL'
		else
			echo "FAIL could not set the last row's measured value of $f to '$v'"
			fail=$((fail + 1))
		fi
	done
	fresh
	head -1 "$src/$f" >"$tmp/d/$f"
	check "$f: header only" 1 'rows, expected'
	fresh
	sed -i '$ d' "$tmp/d/$f"
	check "$f: a row fewer" 1 'rows, expected'
	fresh
	rm "$tmp/d/$f"
	check "$f: missing" 1 "$f: No such file"
done
# a ratio row (prefix caching on over off) that sets prefix_caching: the
# cells shared_prefix_tokens, prefix_caching, routing, metric of row 1
fresh
sed -i '2 s/,\([0-9]*\),,,\([a-z_]*_ratio_cached\),/,\1,true,,\2,/' \
	"$tmp/d/serving-prefix.csv"
if sed -n 2p "$tmp/d/serving-prefix.csv" | grep -q ',true,,[a-z_]*_ratio_cached,'; then
	check "serving-prefix.csv: a ratio row with prefix_caching set" 1 \
		"leave 'prefix_caching' empty"
else
	echo "FAIL could not set prefix_caching in a ratio row of serving-prefix.csv"
	fail=$((fail + 1))
fi
echo "validate serving gates: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
