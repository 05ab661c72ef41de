#!/bin/sh
# run.sh BIN: CLI golden tests.  Each tests/cli/cases/NAME.t holds
#   args: ARGUMENTS...          (split on blanks; run from the repo root)
#   exit: STATUS
# and NAME.out / NAME.err hold the expected stdout and stderr.  In 'args'
# the backslash escapes of printf's %b are expanded ('\033' is ESC), so
# that a case can pass control bytes.  Optional lines, for cases that need
# files made on the spot (a FIFO, a read-only file, a symbolic link):
#   setup: SHELL COMMAND        (before the run; repeatable, in order)
#   env: NAME=VALUE...          (added to the environment of the run)
#   stdin: FILE                 (standard input; /dev/null otherwise)
#   check: SHELL COMMAND        (after the run; each must succeed)
# Every case gets a new empty folder; '$T' names it in 'setup', 'env',
# 'stdin', 'args' and 'check' (the shell commands get it as the variable
# T), and its path is written as '$T' in the output before the output is
# compared.  Setup and check commands run from the repo root.
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
# tables follow COLUMNS (report_table_width): the goldens are 100 wide
unset COLUMNS
bin=$1
dir=$(dirname "$0")/cases
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0
fail=0
: >"$tmp/status-changes"
# run the shell commands of the lines 'key: ...' of case $1; 1 on a failure
run_lines() {
	sed -n "s/^$2: //p" "$1" >"$tmp/lines"
	rl_ok=0
	while IFS= read -r cmd; do
		[ -n "$cmd" ] || continue
		if ! T=$T sh -c "$cmd" </dev/null; then
			echo "FAIL $(basename "$1" .t): $2 failed: $cmd"
			rl_ok=1
		fi
	done <"$tmp/lines"
	return $rl_ok
}
for t in "$dir"/${CASES:-*}.t; do
	if [ ! -f "$t" ]; then
		echo "FAIL no case matches '$dir/${CASES:-*}.t'"
		fail=$((fail + 1))
		continue
	fi
	name=$(basename "$t" .t)
	T=$tmp/case
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
	mkdir "$T"
	args=$(sed -n 's/^args: //p' "$t")
	args=$(printf '%b' "$args" | sed "s|\\\$T|$T|g")
	envs=$(sed -n 's/^env: //p' "$t" | sed "s|\\\$T|$T|g")
	input=$(sed -n 's/^stdin: //p' "$t" | sed "s|\\\$T|$T|g")
	want=$(sed -n 's/^exit: //p' "$t")
	case $want in
	'' | *[!0-9]*)
		echo "FAIL $name: no valid 'exit:' line in $t"
		fail=$((fail + 1))
		continue
		;;
	esac
	if ! run_lines "$t" setup; then
		fail=$((fail + 1))
		continue
	fi
	# shellcheck disable=SC2086
	env $envs "$bin" $args <"${input:-/dev/null}" \
		>"$tmp/raw-out" 2>"$tmp/raw-err"
	got=$?
	sed "s|$T|\$T|g" "$tmp/raw-out" >"$tmp/out"
	sed "s|$T|\$T|g" "$tmp/raw-err" >"$tmp/err"
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
	run_lines "$t" check || ok=0
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
