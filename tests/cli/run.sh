#!/bin/sh
# run.sh BIN: CLI golden tests.  Each tests/cli/cases/NAME.t holds
#   args: ARGUMENTS...          (split on blanks; run from the repo root)
#   exit: STATUS
# and NAME.out / NAME.err hold the expected stdout and stderr.
#
# UPDATE=1 rewrites the expected stdout and stderr from the current output
# of every case whose exit status is unchanged.  A case whose exit status
# changed is left alone, listed at the end (expected -> got) and fails:
# a status is part of the interface and never changes silently.  To accept
# the new statuses too, add UPDATE_EXIT=1 (with UPDATE=1); the accepted
# changes are listed as well.
# CASES=GLOB (e.g. 'compare-*') runs only the matching cases.
# Prints "N passed, M failed" and exits 1 when any case fails or when no
# case ran.
set -u
bin=$1
dir=$(dirname "$0")/cases
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
: >"$tmp/status-changes"
for t in "$dir"/${CASES:-*}.t; do
	if [ ! -f "$t" ]; then
		echo "FAIL no case matches '$dir/${CASES:-*}.t'"
		fail=$((fail + 1))
		continue
	fi
	name=$(basename "$t" .t)
	args=$(sed -n 's/^args: //p' "$t")
	want=$(sed -n 's/^exit: //p' "$t")
	case $want in
	'' | *[!0-9]*)
		echo "FAIL $name: no valid 'exit:' line in $t"
		fail=$((fail + 1))
		continue
		;;
	esac
	# shellcheck disable=SC2086
	"$bin" $args >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "${UPDATE:-0}" = 1 ]; then
		if [ "$got" != "$want" ]; then
			if [ "${UPDATE_EXIT:-0}" = 1 ]; then
				echo "$name: exit $want -> $got (accepted)" \
					>>"$tmp/status-changes"
				sed -i "s/^exit: .*/exit: $got/" "$t"
				want=$got
			else
				echo "$name: exit $want -> $got" \
					>>"$tmp/status-changes"
			fi
		fi
		if [ "$got" = "$want" ]; then
			cp "$tmp/out" "$dir/$name.out"
			cp "$tmp/err" "$dir/$name.err"
		fi
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
if [ -s "$tmp/status-changes" ]; then
	echo "exit statuses that changed (expected -> got):"
	sed 's/^/  /' "$tmp/status-changes"
	if [ "${UPDATE_EXIT:-0}" != 1 ]; then
		echo "these cases were not updated; rerun with UPDATE=1" \
			"UPDATE_EXIT=1 to accept the new statuses"
	fi
fi
echo "cli: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
