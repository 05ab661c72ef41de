#!/bin/sh
# run.sh BUILD: every test of capplan: unit tests (cmocka), CLI golden and
# bad-input tests, file-output tests, and the validation targets.
# Ends with "N passed, M failed" over the suites; notices of checks that
# were skipped (lines starting with "SKIP") are repeated before it.  A run
# that finds no unit test fails.
set -u
# tables follow COLUMNS (report_table_width): the goldens are 100 wide
unset COLUMNS
build=${1:-build}
pass=0
fail=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
suite() {
	name=$1
	shift
	echo "== $name"
	# the suite's status, not the pipe's; its output also goes to the log
	{ "$@"; echo $? >"$log.rc"; } 2>&1 | tee -a "$log"
	if [ "$(cat "$log.rc")" = 0 ]; then
		pass=$((pass + 1))
	else
		echo "FAILED: $name"
		fail=$((fail + 1))
	fi
	rm -f "$log.rc"
}
units=0
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	units=$((units + 1))
	suite "$(basename "$t")" "$t"
done
if [ $units = 0 ]; then
	echo "FAILED: no unit test in $build/tests"
	fail=$((fail + 1))
fi
for t in catalog workload units set hf trace onnx stacks calibrate; do
	suite "fuzz replay $t" "$build/tests/fuzz_replay_$t" \
		tests/fuzz/seeds/$t/* $(ls tests/fuzz/regress/$t/* 2>/dev/null)
done
suite layers sh tests/layers.sh --self-test
suite onnx sh tests/onnx/run.sh "$build"
suite cli sh tests/cli/run.sh "$build/capplan"
suite files sh tests/cli/files.sh "$build/capplan"
suite docs sh tests/cli/docs.sh "$build/capplan"
suite excerpts sh tests/cli/excerpts.sh "$build/capplan"
suite edges sh tests/cli/edges.sh "$build/capplan"
suite keys sh tests/cli/keys.sh "$build/capplan"
suite completion sh tests/cli/completion.sh "$build/capplan"
suite faults sh tests/cli/faults.sh "$build"
suite plot sh tests/cli/plot.sh "$build/capplan"
suite tables sh tests/cli/tables.sh "$build/capplan"
suite report sh tests/cli/report.sh "$build/capplan"
suite progress sh tests/cli/progress.sh "$build/capplan"
suite calibrate sh tests/cli/calibrate.sh "$build/capplan"
suite exact sh tests/cli/exact.sh "$build/capplan"
suite validate "$build/tests/validate" tests/validation
suite "validate serving" "$build/tests/validate_serving" tests/validation
suite "validate wide ep" "$build/tests/validate_ep" tests/validation
suite "validate serving gates" sh tests/cli/validate_serving.sh \
	"$build/tests/validate_serving" tests/validation
suite "validate gates" sh tests/cli/validate.sh "$build/tests/validate" tests/validation
suite intervals sh tests/validation/intervals.sh "$build"
if grep -q '^SKIP' "$log"; then
	echo "skipped (not a failure outside CI):"
	grep '^SKIP' "$log" | sed 's/^/  /'
fi
echo "suites: $pass passed, $fail failed"
[ $fail = 0 ]
