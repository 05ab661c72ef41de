#!/bin/sh
# intervals.sh BUILD - the prediction intervals of src/model/interval_table.c
# are those the validation residuals give today ('make intervals' writes
# them), their leave-one-out coverage, and that specs/validation.md shows
# the same bands.  Exit 1 when stale.
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
# specs/validation.md's table of the bands shows the checked-in ones
awk '
/^\t\[INTERVAL_[A-Z_]+\] = \{/ || /^const struct interval_band interval_production_band = \{/ {
	if (match($0, /\[INTERVAL_[A-Z_]+/))
		k = substr($0, RSTART + 10, RLENGTH - 10)
	else
		k = "PRODUCTION"
	s = $0; sub(/.*= \{ */, "", s); split(s, f, /, */)
	getline d; gsub(/^[ \t]*"|" \}[,;]?$/, "", d); gsub(/,/, ", ", d)
	name = k
	if (k == "TRAINING") name = "training"
	else if (k == "PER_SAMPLE") name = "per-sample"
	else if (k == "THROUGHPUT") name = "throughput"
	else if (k == "OFFLINE") name = "offline throughput"
	else if (k == "SAMPLE_SERVING") name = "per-sample serving"
	else if (k == "PRODUCTION") name = "production (GPU-hours, time to train)"
	batches = f[5] > 0 ? f[5] "-" f[6] : "-"
	printf "| %s | %d | %s | %+.3f to %+.3f | %.2f | %.2fx to %.2fx | %s |\n",
	       name, f[1], batches, f[2], f[3], f[4], exp(f[4] * f[2]),
	       exp(f[4] * f[3]), d
}' src/model/interval_table.c > "$b/interval_rows.md" || {
	echo "FAIL intervals: cannot read src/model/interval_table.c"
	exit 1
}
stale=0
while IFS= read -r row; do
	if ! grep -qxF "$row" specs/validation.md; then
		echo "FAIL intervals: specs/validation.md lacks the band row"
		echo "  $row"
		stale=1
	fi
done < "$b/interval_rows.md"
[ "$stale" = 0 ] || exit 1
echo "intervals: specs/validation.md shows the same bands"
