#!/bin/sh
# files.sh BIN: output files are written whole or not at all, write errors
# are reported, and every example workload runs.
set -u
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
ex=examples/llama3-8b.ini
"$bin" train $ex --gpu A100-SXM-80GB --gpus 64 --format json -o "$tmp/p.json"
check "-o writes the file" '[ $? -eq 0 ] && [ -s "$tmp/p.json" ]'
check "-o leaves no temporary file" '[ "$(ls "$tmp")" = p.json ]'
check "-o output equals stdout output" \
	'"$bin" train $ex --gpu A100-SXM-80GB --gpus 64 --format json | cmp -s - "$tmp/p.json"'
"$bin" train $ex --gpu A100-SXM-80GB --gpus 64 -o "$tmp/missing/p.json" 2>"$tmp/err"
check "-o into a missing folder fails with status 4" '[ $? -eq 4 ] && grep -q "cannot write" "$tmp/err"'
if [ -w /dev/full ]; then
	"$bin" catalog --format json >/dev/full 2>"$tmp/err"
	check "a full disk on stdout fails with status 4" '[ $? -eq 4 ] && [ -s "$tmp/err" ]'
fi
"$bin" catalog --format csv >"$tmp/cat.csv"
check "catalog csv export loads back" \
	'"$bin" catalog --catalog "$tmp/cat.csv" --format csv | cmp -s - "$tmp/cat.csv"'
for f in examples/*.ini; do
	"$bin" fit "$f" --gpu H100-SXM >/dev/null 2>"$tmp/err"
	rc=$?
	check "fit $f runs (status $rc)" '[ $rc -le 1 ] && [ ! -s "$tmp/err" ]'
done
echo "files: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
