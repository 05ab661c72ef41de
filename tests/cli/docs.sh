#!/bin/sh
# docs.sh BIN: every capplan command shown in README.md, man/capplan.1 and
# the examples' headers runs: status 0 or 1 (a documented "no feasible
# plan") and nothing on stderr.  A pipe's right-hand side is not run.
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
{
	# README code blocks
	awk '/^```/{inblk=!inblk; next} inblk' README.md
	# man page: example lines (roff escapes removed)
	sed -n '/^\.SH EXAMPLES/,/^\.SH /p' man/capplan.1 2>/dev/null |
		sed -e 's/\\-/-/g' -e 's/\\fB//g' -e 's/\\fR//g' -e 's/\\fI//g'
	# example headers: "#   capplan ..." lines
	grep -h '^#.*capplan ' examples/*.ini | sed 's/^#[[:space:]]*//'
} | sed -n 's/^[[:space:]]*\(build\/\)\{0,1\}capplan \(.*\)$/\2/p' |
	sed 's/[[:space:]]*|.*$//' | grep -v -w -e WORKLOAD -e COMMAND -e NAME -e FILE -e SECTION |
	sort -u >"$tmp/cmds"
while IFS= read -r args; do
	case $args in
	plot* | report*) continue ;; # charts and the report have their own tests
	esac
	# shellcheck disable=SC2086
	"$bin" $args >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -le 1 ] && [ ! -s "$tmp/err" ]; then
		pass=$((pass + 1))
	else
		echo "FAIL (status $rc): capplan $args"
		head -3 "$tmp/err"
		fail=$((fail + 1))
	fi
done <"$tmp/cmds"
echo "docs: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
