#!/bin/sh
# completion.sh BIN: the bash completion (scripts/capplan.bash) offers what
# BIN says it takes.  Each check gives the words typed (the last one being
# completed) and words that must, or (after '!') must not, be offered.
# Needs bash; prints "SKIP" without it.
set -u
bin=$1
if ! command -v bash >/dev/null 2>&1; then
	echo "SKIP completion: no bash"
	echo "completion: 0 passed, 0 failed"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/run.bash" <<'EOF'
. scripts/capplan.bash
pass=0 fail=0
# check WORDS... -- WANT... (! NOT)
check() {
	local words=() want=() seen
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	COMP_WORDS=("$BIN" "${words[@]}")
	COMP_CWORD=${#words[@]}
	COMPREPLY=()
	_capplan
	seen=" ${COMPREPLY[*]} "
	for w in "$@"; do
		case $w in
		!*) [[ $seen != *" ${w#!} "* ]] && continue ;;
		*) [[ $seen == *" $w "* ]] && continue ;;
		esac
		echo "FAIL: capplan ${words[*]}: '$w' (offered:$seen)"
		fail=$((fail + 1))
		return
	done
	pass=$((pass + 1))
}
check "" -- train infer fit sweep size compare catalog report plot help
check tr -- train '!infer'
check - -- --help --version
check help "" -- train keys
check help keys "" -- model training inference cluster
check train x.ini --gp -- --gpu --gpus '!--top'
check train x.ini --se -- --set --search
check catalog --f -- --format '!--set'
check train x.ini --gpu H10 -- H100-SXM H100-PCIe '!A100-SXM-80GB'
check train x.ini --gpu A100-SXM-80GB,H20 -- A100-SXM-80GB,H200-SXM
check infer x.ini --set inference.tp -- inference.tp= inference.tpot_slo=
check sweep x.ini --vary gp -- gpu= '!training.gpus='
check train x.ini --format "" -- table csv json
check compare x.ini --sort to -- token-cost token-energy '!time'
check plot "" -- scaling cost-time roofline energy cache
check train examples/llama3-8b.i -- examples/llama3-8b.ini
check train x.ini --gpus "" -- '!train'
check train x.ini --catalog specs/catalog.c -- specs/catalog.csv
check train x.ini --catalog specs/catalog.csv --gpu H10 -- H100-SXM
echo "completion: $pass passed, $fail failed"
[ "$fail" = 0 ]
EOF
BIN=$bin bash "$tmp/run.bash"
