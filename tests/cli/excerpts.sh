#!/bin/sh
# excerpts.sh BIN: README.md's output excerpts are what the binary prints.
# An excerpt is a plain ``` block that follows a ```sh block of one
# capplan command (a blank line between); every line of the excerpt must
# be a line of that command's output, in the same order, so that an
# excerpt cannot drift from the tool (issue 40).  Fails when README.md has
# no excerpt at all (the check would then check nothing).
# Ends with "excerpts: N passed, M failed".
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
# "COMMAND<TAB>FIRST_LINE<TAB>LAST_LINE" of each excerpt
awk '
	/^```sh$/ { if (getline c > 0 && getline e > 0 && e == "```" &&
			getline b > 0 && b == "" && getline o > 0 && o == "```") {
			first = NR + 1
			while (getline l > 0 && l != "```")
				;
			printf "%s\t%d\t%d\n", c, first, NR - 1
		} }
' README.md >"$tmp/list"
n=0
while IFS="	" read -r cmd first last; do
	n=$((n + 1))
	args=${cmd#capplan }
	sed -n "${first},${last}p" README.md >"$tmp/want"
	# shellcheck disable=SC2086
	"$bin" $args >"$tmp/got" 2>/dev/null
	# each wanted line, in order, among the lines printed
	if awk 'NR == FNR { want[++n] = $0; next }
		k < n && $0 == want[k + 1] { k++ }
		END { exit k == n ? 0 : 1 }' "$tmp/want" "$tmp/got"; then
		pass=$((pass + 1))
	else
		echo "FAIL README.md:$first: the excerpt of '$cmd' is not its output:"
		awk 'NR == FNR { want[++n] = $0; next }
			k < n && $0 == want[k + 1] { k++ }
			END { print "  first line not found: " want[k + 1] }' \
			"$tmp/want" "$tmp/got"
		fail=$((fail + 1))
	fi
done <"$tmp/list"
if [ "$n" = 0 ]; then
	echo "FAIL no excerpt found in README.md"
	fail=$((fail + 1))
fi
echo "excerpts: $pass passed, $fail failed"
[ "$fail" = 0 ]
