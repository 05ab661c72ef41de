#!/bin/sh
# keys.sh BIN: every numeric key of 'capplan help keys' at the edges of the
# range the help gives it (issue 40: "no value accepted by help keys gives
# exit 5, a 0 s latency or a non-finite number").  The keys and ranges are
# read from the help itself, so a key added to the table is tried too: an
# integer from A to B gets A, A + 1, B - 1 and B; a number from A to B, A
# and B and one part in 10^9 inside each (inside 0: the least normal
# double, 2.2250738585072014e-308); "positive" or "above 0" gets that
# least double in place of 0, "at most" 0 (or that) and the most and just
# below it, "at least" the least and just above it, each in the unit the
# help shows.  Each value runs with --set on representative examples of
# the key's section: a training workload (train), serving fleets (infer:
# ShareGPT-like and fixed lengths, and a disaggregated one for the keys of
# a step or of disaggregation), a per-sample or recommender one for keys
# of those models, with a setting the key needs beside it (speculative
# decoding's rate, owned pricing's capex).  Every run must end in a
# status from 0 to 4 (never 5,
# an internal error, nor a signal or the 20 s timeout), with a message
# when it is 2 or more; what it prints as JSON must parse, hold no NaN or
# infinity, and no latency (TTFT, TPOT, end-to-end, a per-sample batch's)
# of 0 s.  Ends with "keys: N passed, M failed".
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
if ! "$bin" help keys >"$tmp/help" 2>&1; then
	echo "FAIL keys: 'capplan help keys' failed"
	exit 1
fi

# section.key, tab, the range text after the default, one key a line
awk '
function flush() { if (key != "") print sec "." key "\t" rng; key = "" }
/^\[[a-z]+\]$/ { flush(); sec = substr($0, 2, length($0) - 2); next }
/^  [a-z_0-9]+/ { flush(); key = $1; rng = ""; inrange = 0; next }
/^ +\[/ { sub(/^ +\[[^]]*\] /, ""); rng = $0; inrange = 1; next }
/^ +/ && inrange { sub(/^ +/, " "); rng = rng $0; next }
END { flush() }' "$tmp/help" >"$tmp/ranges"

# section.key, tab, a value: the edges of every numeric range
awk -F '\t' '
function num(x) { return sprintf("%.10g", x) }
# split a quantity such as 1PB, 1e+16 or 3.35TB/s into N and U
function split_q(q) {
	match(q, /^[0-9.]+(e[+-]?[0-9]+)?/)
	N = substr(q, 1, RLENGTH) + 0
	U = substr(q, RLENGTH + 1)
}
function out(v) { print $1 "\t" v; count++ }
{
	r = $2
	count = 0
	tiny = "2.2250738585072014e-308"
	if (match(r, /an integer from -?[0-9]+ to [0-9]+/)) {
		n = split(substr(r, RSTART, RLENGTH), w, " ")
		lo = w[4] + 0
		hi = w[6] + 0
		out(sprintf("%.0f", lo))
		if (hi - lo >= 2)
			out(sprintf("%.0f", lo + 1))
		if (hi - lo >= 3)
			out(sprintf("%.0f", hi - 1))
		if (hi > lo)
			out(sprintf("%.0f", hi))
	} else if (match(r, /(a number|a fraction) from [0-9.e+-]+ to [0-9.e+-]+/)) {
		n = split(substr(r, RSTART, RLENGTH), w, " ")
		lo = w[4] + 0
		hi = w[6] + 0
		out(num(lo))
		out(lo == 0 ? tiny : num(lo * (1 + 1e-9)))
		out(num(hi * (1 - 1e-9)))
		out(num(hi))
	} else if (match(r, /above 0, at most [0-9.e+-]+[^ ,]*/) ||
		   match(r, /a positive [a-z ]+ of at most [^ ,]+/) ||
		   match(r, /a [a-z ]+ of at most [^ ,]+/)) {
		phrase = substr(r, RSTART, RLENGTH)
		n = split(phrase, w, " ")
		split_q(w[n])
		if (phrase !~ /positive|above 0/)
			out("0" U)
		out(tiny U)
		out(num(N * (1 - 1e-9)) U)
		out(w[n])
	} else if (match(r, /a [a-z ]+ of at least [^ ,]+/)) {
		n = split(substr(r, RSTART, RLENGTH), w, " ")
		split_q(w[n])
		out(w[n])
		out(num(N * (1 + 1e-9)) U)
	}
	if (count == 0 && r ~ /[0-9]/ &&
	    r !~ /(bytes|one of|list|such as .[0-9]+,|true or false)/)
		print $1 "\tUNREAD\t" r > "/dev/stderr"
}' "$tmp/ranges" >"$tmp/values" 2>"$tmp/unread"
if [ -s "$tmp/unread" ]; then
	# a numeric range this script cannot read: the help changed its
	# wording, and the script must learn it
	sed 's/^/FAIL keys: range not understood: /' "$tmp/unread"
	fail=$((fail + 1))
fi
if [ ! -s "$tmp/values" ]; then
	echo "FAIL keys: no numeric key read from 'capplan help keys'"
	exit 1
fi

# The commands a key runs under: NAME|ARGUMENTS (before --set), one a line.
train='train examples/llama3-8b.ini --gpu H100-SXM --set training.gpus=64'
# two serving fleets, fixed so that a value is simulated once, not sized,
# on 400 requests (the edges are the values', not the run's length):
# ShareGPT-like lengths, and the 70B example's fixed lengths on the fleet
# it sizes itself (every answer as long as output_tokens)
serve='infer examples/llama3-8b-fleet.ini --gpu H100-SXM --set inference.requests=400'
serve70='infer examples/llama3-70b-serving.ini --gpu H100-SXM --set inference.tp=2 --set inference.replicas=5 --set inference.requests=400'
# and a disaggregated fleet, sized by capplan
disagg='infer examples/llama3-8b-disagg.ini --gpu H100-SXM'
commands() { # section.key description
	case $1 in
	model.*)
		case $2 in
		generic:*) echo "sample-train|train examples/resnet50-imagenet.ini --gpu A100-SXM-80GB"
			echo "sample-infer|infer examples/resnet50-imagenet.ini --gpu A100-SXM-80GB" ;;
		recsys:*) echo "recsys-train|train examples/dlrm-criteo.ini --gpu A100-SXM-80GB"
			echo "recsys-infer|infer examples/dlrm-criteo.ini --gpu A100-SXM-80GB" ;;
		*)
			case $1 in
			model.params) echo "params-train|train examples/params-only-13b.ini --gpu H100-SXM" ;;
			*) echo "train|$train"
				echo "infer-70b|$serve70" ;;
			esac ;;
		esac ;;
	training.*)
		case $2 in
		generic*) echo "sample-train|train examples/resnet50-imagenet.ini --gpu A100-SXM-80GB" ;;
		recsys:*) echo "recsys-train|train examples/dlrm-criteo.ini --gpu A100-SXM-80GB" ;;
		*)
			case $1 in
			training.gpus) echo "train|train examples/llama3-8b.ini --gpu H100-SXM" ;;
			*) echo "train|$train" ;;
			esac ;;
		esac ;;
	inference.*)
		case $1:$2 in
		*:per-sample:*) echo "sample-infer|infer examples/resnet50-imagenet.ini --gpu A100-SXM-80GB" ;;
		*:disaggregated:* | inference.prefill_* | inference.decode_* | \
			inference.kv_transfer_bw:*)
			echo "disagg-infer|$disagg" ;;
		*decode* | *prefill*)
			# what a step costs: a disaggregated fleet too
			echo "infer|$serve"
			echo "infer-70b|$serve70"
			echo "disagg-infer|$disagg" ;;
		*) echo "infer|$serve"
			echo "infer-70b|$serve70" ;;
		esac ;;
	cluster.*)
		echo "train|$train"
		echo "infer-70b|$serve70" ;;
	esac
}
# what a key needs beside it to be used at all
context() { # section.key
	case $1 in
	inference.acceptance_rate | inference.draft_cost_ratio)
		echo "--set inference.speculative_tokens=4" ;;
	inference.speculative_tokens)
		echo "--set inference.acceptance_rate=0.7" ;;
	inference.concurrency) echo "--set inference.qps=0" ;;
	cluster.capex_per_gpu | cluster.amortization_years | \
		cluster.hosting_per_kw_month)
		echo "--set cluster.pricing=owned --set cluster.capex_per_gpu=25000" ;;
	model.cross_layers | model.cross_rank)
		echo "--set model.interaction=cross" ;;
	esac
}

# run every command: NUMBER, tab, label into the manifest
n=0
: >"$tmp/manifest"
cut -f1 "$tmp/values" | uniq | while IFS= read -r key; do
	desc=$(awk -v k="${key#*.}" -v s="[${key%%.*}]" '
		$0 == s { in_s = 1; next }
		/^\[/ { in_s = 0 }
		in_s && $1 == k { if (NF > 1) { $1 = ""; sub(/^ +/, ""); print; exit }
			getline; sub(/^ +/, ""); print; exit }' "$tmp/help")
	ctx=$(context "$key")
	commands "$key" "$desc" >"$tmp/cmds"
	awk -F '\t' -v k="$key" '$1 == k { print $2 }' "$tmp/values" >"$tmp/vals"
	while IFS='|' read -r name args; do
		while IFS= read -r v; do
			n=$((n + 1))
			# shellcheck disable=SC2086
			timeout 20 "$bin" $args $ctx --set "$key=$v" \
				--format json >"$tmp/$n.out" 2>"$tmp/$n.err" \
				</dev/null
			echo "$?" >"$tmp/$n.rc"
			printf '%s\t%s %s=%s (%s)\n' "$n" "$name" "$key" "$v" \
				"$args $ctx" >>"$tmp/manifest"
		done <"$tmp/vals"
	done <"$tmp/cmds"
done

# the statuses, messages and JSON of every run, in one pass
python3 - "$tmp" <<'EOF'
import json, math, os, re, sys

tmp = sys.argv[1]
# a latency the output reports: time to first token, per output token,
# end to end, a per-sample batch's; their percentiles and means
LATENCY = re.compile(r'^(ttft|tpot|e2e|latency)(_[a-z0-9]+)*_s$')
passed = failed = 0


def bad_numbers(v, path, found):
    if isinstance(v, dict):
        for k, x in v.items():
            if isinstance(x, (int, float)) and not isinstance(x, bool) \
                    and LATENCY.match(k) and x == 0:
                found.append('%s%s is 0 s' % (path, k))
            bad_numbers(x, path + k + '.', found)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            bad_numbers(x, '%s%d.' % (path, i), found)
    elif isinstance(v, float) and not math.isfinite(v):
        found.append('%s is %r' % (path.rstrip('.'), v))


def constant(name):
    raise ValueError('%s in the JSON' % name)


for line in open(os.path.join(tmp, 'manifest')):
    n, label = line.rstrip('\n').split('\t', 1)
    rc = int(open(os.path.join(tmp, n + '.rc')).read())
    out = open(os.path.join(tmp, n + '.out'), errors='replace').read()
    err = open(os.path.join(tmp, n + '.err'), errors='replace').read()
    first = err.strip().split('\n')[0] if err.strip() else ''
    why = None
    if rc == 124:
        why = 'ran past 20 s'
    elif rc > 4:
        why = 'exit %d: %s' % (rc, first)
    elif rc >= 2 and not err.strip():
        why = 'exit %d without a message' % rc
    elif out.strip():
        try:
            found = []
            bad_numbers(json.loads(out, parse_constant=constant), '', found)
            if found:
                why = 'exit %d: %s' % (rc, '; '.join(found[:3]))
        except ValueError as e:
            why = 'exit %d: the JSON does not parse: %s' % (rc, e)
    if why:
        print('FAIL %s: %s' % (label, why))
        failed += 1
    else:
        passed += 1
print('%d %d' % (passed, failed), file=open(os.path.join(tmp, 'count'), 'w'))
EOF
if [ ! -s "$tmp/count" ]; then
	echo "FAIL keys: the checks did not run (python3)"
	exit 1
fi
read -r pass failed <"$tmp/count"
fail=$((fail + failed))
echo "keys: $pass passed, $fail failed"
[ "$fail" = 0 ] && [ "$pass" -gt 0 ]
