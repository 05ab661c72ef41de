#!/bin/sh
# run.sh BUILD: build the test graphs with the onnx Python package
# (tests/onnx/make_graphs.py; Debian's python3-onnx) and check what
# capplan reads from them against hand counts (tests/onnx/onnx_counts.c).
# Without python3-onnx the check is skipped with a notice; in CI (CI set,
# as .ci/run does) scripts/deps.sh installs it and its absence fails.
set -u
build=${1:-build}
py=
for p in python3 /usr/bin/python3; do
	if command -v "$p" >/dev/null 2>&1 &&
		"$p" -c 'import onnx' >/dev/null 2>&1; then
		py=$p
		break
	fi
done
if [ -z "$py" ]; then
	case ${CI:-} in
	'' | 0 | false)
		echo "SKIP onnx: python3-onnx not found: graph checks skipped (sh scripts/deps.sh installs it)"
		exit 0
		;;
	*)
		echo "FAIL onnx: python3-onnx not found in CI (CI=$CI); scripts/deps.sh installs python3-onnx"
		exit 1
		;;
	esac
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! "$py" tests/onnx/make_graphs.py "$tmp"; then
	echo "FAIL onnx: tests/onnx/make_graphs.py failed"
	exit 1
fi
"$build/tests/onnx_counts" "$tmp"
