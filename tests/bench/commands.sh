#!/bin/sh
# commands.sh BIN [--instructions] - issue 43's commands as users type
# them: the median wall time of three runs of each, and with
# --instructions the instructions of one run counted by callgrind (slow:
# the simulation runs some 50 times slower under valgrind).  make bench
# runs it; 'make bench INSTRUCTIONS=1' counts instructions too.
set -u
BIN=$1
count=0
[ "${2:-}" = "--instructions" ] && count=1
if [ "$count" -eq 1 ] && ! command -v valgrind >/dev/null 2>&1; then
	echo "commands: valgrind is not installed: no instruction counts"
	count=0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
serve=examples/llama3-70b-serving.ini
printf '%-62s %9s %12s\n' "command (issue 43)" "wall" "instructions"
while IFS='|' read -r name args; do
	[ -z "$name" ] && continue
	times=""
	for i in 1 2 3; do
		s=$(date +%s.%N)
		# shellcheck disable=SC2086
		"$BIN" $args >/dev/null 2>&1
		e=$(date +%s.%N)
		times="$times $(awk -v a="$s" -v b="$e" 'BEGIN { print b - a }')"
	done
	wall=$(echo "$times" | tr ' ' '\n' | sed '/^$/d' | sort -n | sed -n 2p)
	ins="-"
	if [ "$count" -eq 1 ]; then
		# shellcheck disable=SC2086
		valgrind --tool=callgrind --callgrind-out-file="$T/cg" \
			"$BIN" $args >/dev/null 2>"$T/err"
		ins=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$T/err" |
			awk '{ printf "%.3g G", $1 / 1e9 }')
	fi
	printf '%-62s %8.2fs %12s\n' "$name" "$wall" "$ins"
done <<LIST
size $serve|size $serve
compare $serve|compare $serve
infer $serve --gpu H100-SXM --search|infer $serve --gpu H100-SXM --search
size examples/llama3-70b.ini --deadline 90d|size examples/llama3-70b.ini --deadline 90d
plot replicas $serve|plot replicas $serve -o $T/replicas.svg
compare $serve --plot DIR|compare $serve --plot $T/plots
report $serve --gpu H100-SXM,H200-SXM,B200,MI300X|report $serve --gpu H100-SXM,H200-SXM,B200,MI300X -o $T/plan.html
LIST
