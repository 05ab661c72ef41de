#!/bin/sh
# faults.sh BUILD: every allocation site of capplan's own code failing in
# turn, and writes failing.  Each run must end with a message and a
# non-zero status (or succeed when the failed allocation had a fallback),
# never a crash, and leave no output file behind when it fails.  A command
# whose allocation count cannot be read fails: it would test nothing.
set -u
bin=$1/tests/capplan-faults
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
runs() { # label, args...
	label=$1
	shift
	n=$(CAPPLAN_COUNT_ALLOC=1 "$bin" "$@" -o "$tmp/out" 2>&1 >/dev/null |
		sed -n 's/^allocations: //p')
	rm -f "$tmp/out"
	# no count (a build without the fault wrapper, a crash before the
	# count is printed) would run no case: that is a failure
	case $n in
	'' | *[!0-9]* | 0)
		echo "FAIL $label: cannot read the allocation count (got '$n')"
		fail=$((fail + 1))
		return
		;;
	esac
	i=1
	while [ "$i" -le "$n" ]; do
		CAPPLAN_FAIL_ALLOC=$i "$bin" "$@" -o "$tmp/out" \
			>/dev/null 2>"$tmp/err"
		rc=$?
		if [ $rc -gt 5 ]; then
			echo "FAIL $label: allocation $i of $n: exit $rc"
			fail=$((fail + 1))
		elif [ $rc -ne 0 ] && [ ! -s "$tmp/err" ]; then
			echo "FAIL $label: allocation $i of $n: no message"
			fail=$((fail + 1))
		elif [ $rc -ne 0 ] && ls "$tmp" | grep -q '^out'; then
			echo "FAIL $label: allocation $i of $n: left a file"
			fail=$((fail + 1))
		else
			pass=$((pass + 1))
		fi
		rm -f "$tmp"/out*
		i=$((i + 1))
	done
}
runs "train" train examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --format json
runs "train --search" train examples/llama3-8b.ini --gpu H100-SXM --gpus 64 --search
runs "infer" infer examples/llama3-70b-serving.ini --gpu H100-SXM
runs "fit" fit examples/llama3-70b.ini --gpus 64 --gpu H100-SXM,A100-SXM-80GB
runs "compare" compare examples/llama3-8b-l4.ini --gpu L4,H100-SXM --format csv
runs "catalog" catalog --format csv
runs "hf config" train examples/deepseek-v3.ini --gpu H800
runs "--model" infer --model examples/hf/qwen2-7b.json --gpu H100-SXM
runs "onnx graph" train examples/resnet50-onnx.ini --gpu A100-SXM-80GB --format json
runs "onnx serving" infer examples/efficientnet-b0-onnx.ini --gpu L4
runs "size serving" size examples/llama3-8b-fleet.ini --gpu H100-SXM,A100-SXM-80GB \
	--set inference.requests=200
runs "compare serving" compare examples/llama3-8b-fleet.ini \
	--gpu H100-SXM,A100-SXM-80GB --set inference.requests=200
runs "sessions, prefix cache" infer examples/llama3-8b-fleet.ini --gpu H100-SXM \
	--set inference.turns=3 --set inference.think_time=1s \
	--set inference.prefix_caching=true --set inference.requests=200
# a full disk: nothing half-written, status 4
if [ -w /dev/full ]; then
	"$1/capplan" catalog --format json >/dev/full 2>"$tmp/err"
	if [ $? -eq 4 ] && [ -s "$tmp/err" ]; then pass=$((pass + 1)); else
		echo "FAIL a full disk on stdout"
		fail=$((fail + 1))
	fi
fi
echo "faults: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
