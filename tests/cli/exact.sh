#!/bin/sh
# Issue 43's exactness check: the pruned 'infer --search' (candidates whose
# fewest GPUs exceed the k-th fleet are not sized) shows the same k
# cheapest configurations as the exhaustive search (--top past every
# candidate) on random small serving workloads; and size --deadline, which
# skips the GPU counts whose FLOPs at the peak miss the deadline, answers
# the smallest count whose plan meets it (train at that count and at half
# of it), on five examples.
# usage: exact.sh BIN [CASES]
set -u
BIN=$1
CASES=${2:-12}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
pruned=0
i=1
while [ "$i" -le "$CASES" ]; do
	# a Llama-like model of 1-14B, a Poisson rate, lengths and targets
	awk -v seed="$i" 'BEGIN {
		srand(seed);
		layers = 16 + 4 * int(rand() * 7);
		hidden = 2048 * (1 + int(rand() * 3));
		heads = hidden / 128;
		qps = 2 + int(rand() * 40);
		prompt = 128 * (1 + int(rand() * 16));
		out = 32 * (1 + int(rand() * 8));
		ttft = 200 + 100 * int(rand() * 8);
		tpot = 20 + 10 * int(rand() * 5);
		printf "[model]\nname = m%d\nlayers = %d\nhidden = %d\n", seed, layers, hidden;
		printf "heads = %d\nkv_heads = 8\nffn_hidden = %d\n", heads, 3.5 * hidden;
		printf "gated_ffn = true\nvocab = 32000\nseq_len = 8192\n\n";
		printf "[inference]\nprompt_tokens = %d\noutput_tokens = %d\n", prompt, out;
		printf "qps = %d\nttft_slo = %dms\ntpot_slo = %dms\n", qps, ttft, tpot;
		printf "percentile = p99\nrequests = 400\n";
	}' > "$T/w$i.ini"
	for gpu in L4 H100-SXM; do
		"$BIN" infer "$T/w$i.ini" --gpu "$gpu" --search --top 3 \
			--format csv > "$T/top3.csv" 2> "$T/err3"
		rc3=$?
		"$BIN" infer "$T/w$i.ini" --gpu "$gpu" --search --top 40 \
			--format csv > "$T/all.csv" 2> "$T/errall"
		rca=$?
		head -n 4 "$T/all.csv" > "$T/all3.csv"
		if [ "$rc3" -ne "$rca" ] || ! cmp -s "$T/top3.csv" "$T/all3.csv"; then
			echo "FAIL case $i on $gpu: the pruned search differs"
			cat "$T/w$i.ini"
			diff "$T/top3.csv" "$T/all3.csv"
			fail=1
		fi
		"$BIN" infer "$T/w$i.ini" --gpu "$gpu" --search --top 3 \
			--format json 2>/dev/null |
			grep -q '"configs_not_sized":	[1-9]' && pruned=$((pruned + 1))
	done
	i=$((i + 1))
done
# size --deadline skips the counts whose model FLOPs at the peak miss the
# deadline: its answer must still be the smallest count (the node times a
# power of two) whose plan meets the deadline, as train plans it
python3 - "$BIN" <<'PY' || fail=1
import json, subprocess, sys
b = sys.argv[1]
def run(*a):
    r = subprocess.run([b, *a, "--format", "json"], capture_output=True,
                       text=True)
    return json.loads(r.stdout)
bad = 0
for wl, dl, days, gpu in (("llama3-8b", "7d", 7, "H100-SXM"),
                          ("llama3-8b", "30d", 30, "A100-SXM-80GB"),
                          ("llama3-70b", "90d", 90, "H100-SXM"),
                          ("llama3-70b", "365d", 365, "L40S"),
                          ("gpt3-175b", "60d", 60, "H200-SXM")):
    f = "examples/%s.ini" % wl
    row = run("size", f, "--gpu", gpu, "--deadline", dl)[0]
    node = run("catalog", "--gpu", gpu)[0]["gpus_per_node"]
    what = "size %s --deadline %s on %s" % (wl, dl, gpu)
    if not row["feasible"]:
        print("FAIL %s: no answer to check" % what); bad = 1; continue
    n, limit = row["gpus"], days * 86400.0
    t = run("train", f, "--gpu", gpu, "--gpus", str(n))["time_to_train_s"]
    if t > limit:
        print("FAIL %s: %d GPUs take %g s" % (what, n, t)); bad = 1
    if n > node:
        t = run("train", f, "--gpu", gpu, "--gpus",
                str(n // 2))["time_to_train_s"]
        if t <= limit:
            print("FAIL %s: %d GPUs already meet it" % (what, n // 2))
            bad = 1
# where no count meets the deadline, the counts whose FLOPs at the
# fastest kernel rate cannot beat the fastest plan are not planned: the
# count size names must still be the fastest of the whole ladder
for wl, dl, gpu in (("llama3-70b", "90d", "T4"),
                    ("llama3-70b", "30d", "RTX-4090"),
                    ("llama3-8b", "12h", "A10")):
    f = "examples/%s.ini" % wl
    row = run("size", f, "--gpu", gpu, "--deadline", dl)[0]
    what = "size %s --deadline %s on %s" % (wl, dl, gpu)
    why = row.get("why") or ""
    if row["feasible"] or not why.startswith("fastest is "):
        print("FAIL %s: no 'fastest' to check (%s)" % (what, why)); bad = 1
        continue
    said = int(why.split(" on ")[1].split(" GPUs")[0])
    node = run("catalog", "--gpu", gpu)[0]["gpus_per_node"]
    best, best_n, n = None, None, node
    while n <= 1 << 20:
        r = subprocess.run([b, "train", f, "--gpu", gpu, "--gpus", str(n),
                            "--format", "json"], capture_output=True,
                           text=True)
        if r.stdout.strip():
            t = json.loads(r.stdout)
            if t["memory"]["fits"] and t["time_to_train_s"] is not None \
                    and (best is None or t["time_to_train_s"] < best):
                best, best_n = t["time_to_train_s"], n
        n *= 2
    if best_n != said:
        print("FAIL %s: says fastest on %d GPUs, train's fastest is on %s"
              % (what, said, best_n)); bad = 1
sys.exit(bad)
PY

# The replicas chart plans a device's rates with large fleets one after
# the other, each sizing started where the last found the targets' edge
# (struct fleet_share).  Each point against 'infer' at its rate alone:
# the same GPUs within 2%, or, where the chart answers more, a count of
# its tp between the two that misses the targets (the simulated tail is
# not monotone in the replicas there, and the lone sizing's bisection
# landed on a count that happened to pass).
python3 - "$BIN" "$T" <<'PY' || fail=1
import csv, io, json, os, random, subprocess, sys
b, tmp = sys.argv[1], sys.argv[2]
def run(*a):
    r = subprocess.run([b, *a], capture_output=True, text=True)
    return r.returncode, r.stdout
bad = same = near = wider = 0
for seed in range(1, 9):
    rng = random.Random(seed)
    layers = 16 + 4 * rng.randrange(7)
    hidden = 2048 * (1 + rng.randrange(3))
    wl = os.path.join(tmp, "chart%d.ini" % seed)
    with open(wl, "w") as f:
        f.write("[model]\nname = c%d\nlayers = %d\nhidden = %d\n"
                "heads = %d\nkv_heads = 8\nffn_hidden = %d\n"
                "gated_ffn = true\nvocab = 32000\nseq_len = 8192\n\n"
                "[inference]\nprompt_tokens = %d\noutput_tokens = %d\n"
                "qps = 1\nttft_slo = %dms\ntpot_slo = %dms\n"
                "percentile = p99\n"
                % (seed, layers, hidden, hidden // 128, 3.5 * hidden,
                   128 * (1 + rng.randrange(16)), 32 * (1 + rng.randrange(8)),
                   200 + 100 * rng.randrange(8), 20 + 10 * rng.randrange(5)))
    for gpu in ("L4", "A10"):
        out = os.path.join(tmp, "chart%d.svg" % seed)
        rc, _ = run("plot", "replicas", wl, "--gpu", gpu, "-o", out,
                    "--keep-script")
        dat = out[:-4] + ".dat"
        if rc == 1:
            continue   # the device meets the targets at no rate
        if rc not in (0, 4) or not os.path.exists(dat):
            print("FAIL plot replicas of chart%d on %s: status %d"
                  % (seed, gpu, rc)); bad = 1; continue
        pts = [l.split() for l in open(dat) if l[:1].isdigit()]
        for q, g, r, tp in ((float(p[0]), int(p[1]), int(p[2]), int(p[3]))
                            for p in pts):
            if r < 16:
                continue   # below the chain (REPLICAS_CHAIN_FROM)
            rc, o = run("infer", wl, "--gpu", gpu, "--set",
                        "inference.qps=%r" % q, "--format", "json")
            lone = json.loads(o)["gpus_total"]
            if abs(g - lone) <= 0.02 * lone:
                same += g == lone
                near += g != lone
                continue
            if g < lone:
                wider += 1  # fewer GPUs, met in the chart's own simulation
                continue
            # more than alone: some count of the chart's tp in between
            # must miss the targets
            lo_r = -(-lone // tp)
            counts = sorted({lo_r + (r - 1 - lo_r) * k // 4
                             for k in range(5)} - {r})
            miss = False
            for n in counts:
                rc, o = run("infer", wl, "--gpu", gpu, "--set",
                            "inference.qps=%r" % q, "--set",
                            "inference.tp=%d" % tp, "--set",
                            "inference.replicas=%d" % n, "--format", "json")
                if not json.loads(o)["meets_slo"]:
                    miss = True
                    break
            if miss:
                wider += 1
            else:
                print("FAIL chart%d on %s at %g requests/s: %d GPUs, %d "
                      "alone, and every count between meets the targets"
                      % (seed, gpu, q, g, lone))
                bad = 1
print("exact: replicas chart against lone sizings: %d points the same, %d "
      "within 2%%, %d apart where the tail is not monotone"
      % (same, near, wider))
if same + near == 0:
    print("FAIL no chart point to compare"); bad = 1
sys.exit(bad)
PY

# the check must have something to check: some searches pruned
if [ "$pruned" -eq 0 ]; then
	echo "FAIL no search left a configuration unsized"
	fail=1
fi
[ "$fail" -eq 0 ] && echo "exact: $CASES workloads x 2 devices, pruned and exhaustive searches agree ($pruned pruned); size --deadline gives the smallest count that meets it (5 runs) or the fastest (3 runs)"
exit "$fail"
