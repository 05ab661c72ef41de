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
# CSV of a table where a device or a point cannot be planned: every row has
# the header's fields, and each cell holds its record's JSON value of the
# column's name (empty for null, KEY.lo and KEY.hi for an interval)
csv_matches_json() {
	"$bin" "$@" --format csv >"$tmp/t.csv" &&
		"$bin" "$@" --format json >"$tmp/t.json" &&
		python3 - "$tmp/t.csv" "$tmp/t.json" <<'PY'
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
recs = json.load(open(sys.argv[2]))
def cell(rec, name):  # 'training.gpus' is a key of a sweep, or a group
    if name in rec:
        return rec[name]
    for part in name.split("."):
        if isinstance(rec, list):
            return rec[part == "hi"]
        rec = rec.get(part) if isinstance(rec, dict) else None
    return rec
def text(v):
    return ("" if v is None else str(v).lower() if isinstance(v, bool)
            else str(v))
def same(got, want):
    try:
        return got == want or float(got) == float(want)
    except ValueError:
        return False
ok = len(rows) == len(recs) + 1 and len(recs) > 1
for row, rec in zip(rows[1:], recs):
    ok = ok and len(row) == len(rows[0])
    for name, got in zip(rows[0], row):
        want = text(cell(rec, name))
        if not same(got, want):
            print("%s: '%s', JSON '%s'" % (name, got, want))
            ok = False
sys.exit(0 if ok else 1)
PY
}
check "compare csv with devices that cannot train" \
	'csv_matches_json compare examples/llama3-70b.ini \
		--gpu H100-SXM,L4,RTX-4090'
check "size csv with a device that cannot meet the deadline" \
	'csv_matches_json size examples/llama3-70b.ini --gpu H100-SXM,L4 \
		--deadline 30d'
check "sweep csv whose first point fails" \
	'csv_matches_json sweep examples/llama3-8b.ini --gpu H100-SXM \
		--vary training.gpus=x,1,7'
# a text cell that a spreadsheet would run as a formula is prefixed
sed 's/^name = llama3-8b$/name = =1+1/' $ex >"$tmp/formula.ini"
"$bin" train "$tmp/formula.ini" --gpu H100-SXM --gpus 8 --format csv \
	>"$tmp/formula.csv"
check "csv writes the model name '=1+1' as the text \"'=1+1\"" \
	'[ $? -eq 0 ] && sed -n 2p "$tmp/formula.csv" | grep -q "^\"'\''=1+1\","'
for f in examples/*.ini; do
	"$bin" fit "$f" --gpu H100-SXM >/dev/null 2>"$tmp/err"
	rc=$?
	check "fit $f runs (status $rc)" '[ $rc -le 1 ] && [ ! -s "$tmp/err" ]'
done
echo "files: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
