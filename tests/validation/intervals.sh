#!/bin/sh
# intervals.sh BUILD - the prediction intervals of src/model/interval_table.c
# are those the validation residuals give today ('make intervals' writes
# them), and their leave-one-out coverage.  Exit 1 when stale.
b=${1:-build}
"$b/tests/intervals" --check "$b/residuals.txt" || exit 1
"$b/tests/intervals" "$b/residuals.txt" > "$b/interval_table.c" || exit 1
if cmp -s "$b/interval_table.c" src/model/interval_table.c; then
	echo "intervals: src/model/interval_table.c matches the validation residuals"
else
	echo "FAIL intervals: src/model/interval_table.c is stale: run 'make intervals'"
	diff src/model/interval_table.c "$b/interval_table.c" | head -20
	exit 1
fi
