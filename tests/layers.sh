#!/bin/sh
# layers.sh [SRC] - the layers of capplan's sources run one way.
#
# Each folder of SRC (default src) is a layer; a file may include headers of
# its own layer and of the layers below it, never of one above.  A header
# named *_internal.h is private to its folder.  Every quoted include must
# name a header of SRC, or one the build generates (GENERATED below).
# Prints each violation as FILE:LINE: what is wrong, and exits 1 when there
# is any; a folder missing from the order below is a violation too, so a
# new layer is placed on purpose.  README.md, "Layout", draws the layers.
#
# layers.sh --self-test: the check on the tree, then on a copy of it with
# an upward include planted, which must fail.
set -u

# lowest first; the Makefile's LAYERS lists the same folders (checked)
ORDER="util graph input model serve plan render cmd"
GENERATED="onnx.pb-c.h"

check() {
	src=$1
	bad=0
	for d in "$src"/*/; do
		d=${d%/}
		l=${d##*/}
		case " $ORDER " in
		*" $l "*) ;;
		*)
			echo "$d: a folder that is no layer: add it to ORDER in tests/layers.sh and to LAYERS in the Makefile"
			bad=1
			;;
		esac
	done
	# header -> its layer; a name in two layers is ambiguous under -I
	map=$(mktemp)
	for l in $ORDER; do
		[ -d "$src/$l" ] || continue
		for h in "$src/$l"/*.h; do
			[ -e "$h" ] && echo "${h##*/} $l"
		done
	done | sort >"$map"
	dup=$(awk '{print $1}' "$map" | uniq -d)
	if [ -n "$dup" ]; then
		for h in $dup; do
			echo "$h: a header name in two layers ($(grep "^$h " "$map" | awk '{print $2}' | tr '\n' ' '))"
		done
		bad=1
	fi
	rank=0
	for l in $ORDER; do
		rank=$((rank + 1))
		[ -d "$src/$l" ] || continue
		for f in "$src/$l"/*.c "$src/$l"/*.h; do
			[ -e "$f" ] || continue
			awk -v file="$f" -v layer="$l" -v order="$ORDER" \
				-v gen="$GENERATED" -v map="$map" '
			BEGIN {
				n = split(order, o, " ")
				for (i = 1; i <= n; i++) r[o[i]] = i
				while ((getline line < map) > 0) {
					split(line, kv, " ")
					at[kv[1]] = kv[2]
				}
				ng = split(gen, g, " ")
				for (i = 1; i <= ng; i++) generated[g[i]] = 1
			}
			/^[ \t]*#[ \t]*include[ \t]*"/ {
				h = $0
				sub(/^[^"]*"/, "", h)
				sub(/".*$/, "", h)
				if (h in generated)
					next
				if (!(h in at)) {
					printf "%s:%d: includes \"%s\", which no layer has\n", file, FNR, h
					bad = 1
					next
				}
				if (r[at[h]] > r[layer]) {
					printf "%s:%d: includes \"%s\" of layer %s, above %s (order: %s)\n", file, FNR, h, at[h], layer, order
					bad = 1
				} else if (h ~ /_internal\.h$/ && at[h] != layer) {
					printf "%s:%d: includes \"%s\", private to %s\n", file, FNR, h, at[h]
					bad = 1
				}
			}
			END { exit bad }' "$f" || bad=1
		done
	done
	rm -f "$map"
	return $bad
}

# The Makefile builds with the same order (its -I list comes from LAYERS).
check_makefile() {
	mk=$(sed -n 's/^LAYERS := //p' Makefile)
	if [ "$mk" != "$ORDER" ]; then
		echo "Makefile: LAYERS is '$mk', tests/layers.sh's ORDER '$ORDER'"
		return 1
	fi
}

if [ "${1:-}" = --self-test ]; then
	cd "$(dirname "$0")/.." || exit 2
	status=0
	check src && check_makefile && echo "layers: every include runs down ($ORDER)" || status=1
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	cp -R src "$tmp/src"
	# a model that reaches up to the command line, and an internal
	# header used from another folder: both must be found
	printf '#include "cli.h"\n' >>"$tmp/src/model/model_flops.c"
	printf '#include "sim_internal.h"\n' >>"$tmp/src/plan/plan.c"
	out=$(check "$tmp/src")
	case $out in
	*"model_flops.c:"*'"cli.h" of layer cmd, above model'*) ;;
	*) echo "FAIL layers: a planted upward include was not found: $out"; status=1 ;;
	esac
	case $out in
	*"plan.c:"*'"sim_internal.h", private to serve'*) ;;
	*) echo "FAIL layers: a planted internal include was not found: $out"; status=1 ;;
	esac
	[ $status = 0 ] && echo "layers: planted upward and internal includes are caught"
	exit $status
fi
check "${1:-src}"
