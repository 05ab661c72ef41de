#!/bin/sh
# calibrate.sh BIN: 'capplan calibrate' learns what it was not told.
# Measurements are made by capplan itself on a catalog whose H100-SXM is
# slower than the embedded one (GEMM efficiency 0.62 instead of 0.75,
# bandwidth 0.70 instead of 0.90) and a vLLM whose front end takes 25 ms
# instead of 10; calibrated on the embedded catalog, the fit must find
# those values within its 80% ranges, and plans with the profile must
# reproduce the measurements it was fitted on.  Then its errors: file,
# line and column, and the documented statuses.
# Ends with "calibrate: N passed, M failed".
set -u
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
check() {
	if eval "$2"; then pass=$((pass + 1)); else
		echo "FAIL $1"
		fail=$((fail + 1))
	fi
}
# a field of a JSON object on stdin
field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

root=$(pwd)
"$bin" catalog --format csv >"$tmp/cat.csv"
python3 - "$tmp/cat.csv" "$tmp/truth.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
for r in rows[1:]:
    if r[h.index('name')] == 'H100-SXM':
        r[h.index('matmul_eff')] = '0.62'
        r[h.index('mem_eff')] = '0.7'
csv.writer(open(sys.argv[2], 'w'), lineterminator='\n').writerows(rows)
EOF
train=$root/examples/llama3-8b.ini
serve=$root/examples/llama3-70b-serving.ini
echo "command,workload,gpu,gpus,set,metric,measured" >"$tmp/m.csv"
for g in 8 64; do
	v=$("$bin" train "$train" --gpu H100-SXM --gpus $g --catalog "$tmp/truth.csv" \
		--format json | field "['tokens_per_s_per_gpu']")
	echo "train,$train,H100-SXM,$g,,tokens_per_s_per_gpu,$v" >>"$tmp/m.csv"
done
v=$("$bin" train "$train" --gpu H100-SXM --gpus 8 --set training.tp=2 \
	--catalog "$tmp/truth.csv" --format json | field "['step_time_s']")
echo "train,$train,H100-SXM,8,training.tp=2,step_time_s,$v" >>"$tmp/m.csv"
# the serving runs as a user measures them: their tp, batch and replicas
# given (specs/calibration.md, "Give the configuration you measured"),
# those the truth's plan chose
for q in 5 20; do
	"$bin" infer "$serve" --gpu H100-SXM --set inference.qps=$q \
		--set inference.engine=vllm \
		--set inference.host_request_overhead=25ms \
		--catalog "$tmp/truth.csv" --format json >"$tmp/run.json"
	ran=$(python3 -c "import json,sys; d=json.load(open('$tmp/run.json')); print('inference.tp=%d;inference.batch=%d;inference.replicas=%d' % (d['tp'], d['batch'], d['replicas']))")
	for met in ttft_p50_s tpot_p50_s; do
		v=$(field "['$met']" <"$tmp/run.json")
		echo "infer,$serve,H100-SXM,,inference.qps=$q;inference.engine=vllm;$ran,$met,$v" >>"$tmp/m.csv"
	done
done

"$bin" calibrate "$tmp/m.csv" -o "$tmp/p.ini" --format json >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
check "calibrate: status $rc, nothing on stderr" "[ $rc = 0 ] && [ ! -s '$tmp/err' ]"
check "the profile is written" "[ -s '$tmp/p.ini' ] && grep -q '^\[device H100-SXM\]' '$tmp/p.ini'"
# each parameter's truth within its 80% range
inrange() {
	python3 - "$tmp/fit.json" "$1" "$2" <<'EOF'
import json, sys
fit = json.load(open(sys.argv[1]))
p = [q for q in fit['parameters'] if q['name'] == sys.argv[2]][0]
t = float(sys.argv[3])
lo, hi = p['range']
sys.exit(0 if lo <= t <= hi and p['determined'] else 1)
EOF
}
check "H100-SXM matmul_eff 0.62 within its range" "inrange 'H100-SXM matmul_eff' 0.62"
check "H100-SXM mem_eff 0.70 within its range" "inrange 'H100-SXM mem_eff' 0.70"
# the 70B example serves fp8 weights on fp8 GEMMs, at the catalog's own
# fp8_matmul_eff (0.66), which the truth's catalog leaves alone
check "H100-SXM fp8_matmul_eff 0.66 within its range" "inrange 'H100-SXM fp8_matmul_eff' 0.66"
check "vllm host_request_overhead 25 ms within its range" \
	"inrange 'vllm@0.11.0 host_request_overhead' 0.025"
check "rms error before above 10%, after below 2%" \
	"python3 -c \"import json; f=json.load(open('$tmp/fit.json')); exit(0 if f['rms_log_before'] > 0.1 and f['rms_log_after'] < 0.02 else 1)\""

# the profile reproduces the measurements it was fitted on, within the
# fit's residuals: a plan with it predicts what the fit predicted
n=0
while IFS=, read -r cmd wl gpu gpus set metric measured; do
	[ "$cmd" = command ] && continue
	after=$(field "['rows'][$n]['predicted_after']" <"$tmp/fit.json")
	n=$((n + 1))
	args="--gpu $gpu --profile $tmp/p.ini --format json"
	[ -n "$gpus" ] && args="$args --gpus $gpus"
	sets=$(printf '%s' "$set" | tr ';' ' ')
	for s in $sets; do args="$args --set $s"; done
	# shellcheck disable=SC2086
	got=$("$bin" "$cmd" "$wl" $args | field "['$metric']")
	check "--profile reproduces $cmd $metric (fit $after, got $got)" \
		"python3 -c 'exit(0 if abs($got / $after - 1) < 0.01 and abs($got / $measured - 1) < 0.03 else 1)'"
done <"$tmp/m.csv"
out=$("$bin" infer "$serve" --gpu A100-SXM-80GB --set inference.engine=vllm \
	--profile "$tmp/p.ini" 2>&1)
check "a plan on another device says the engine was fitted elsewhere" \
	"printf '%s' \"\$out\" | grep -q 'fitted on H100-SXM, not on A100-SXM-80GB'"

# the calibrated intervals: a class the profile measured, on its device
# and stack, takes the profile's spread (narrower than the validation
# band here, where the truth is in the model) and holds the measurement
check "the profile has the intervals of its classes" \
	"grep -q '^\[interval training\]' '$tmp/p.ini' && grep -q '^\[interval ttft\]' '$tmp/p.ini' && grep -q '^\[interval tpot\]' '$tmp/p.ini'"
measured=$(sed -n 2p "$tmp/m.csv" | cut -d, -f7)
"$bin" train "$train" --gpu H100-SXM --gpus 8 --format json >"$tmp/plain.json"
"$bin" train "$train" --gpu H100-SXM --gpus 8 --profile "$tmp/p.ini" \
	--format json >"$tmp/cal.json"
python3 - "$tmp/plain.json" "$tmp/cal.json" "$measured" <<'PY' >"$tmp/iv"
import json, sys
a = json.load(open(sys.argv[1]))['interval']
b = json.load(open(sys.argv[2]))['interval']
m = float(sys.argv[3])
lo, hi = b['tokens_per_s_per_gpu']
wa = a['tokens_per_s_per_gpu'][1] / a['tokens_per_s_per_gpu'][0]
print(int(b['calibrated'] and not a['calibrated'] and lo <= m <= hi
          and hi / lo < wa))
PY
check "a calibrated plan's interval is the profile's, holds the measurement" \
	"[ \"\$(cat '$tmp/iv')\" = 1 ]"
cal=$("$bin" train "$train" --gpu A100-SXM-80GB --gpus 8 --profile "$tmp/p.ini" \
	--format json | field "['interval']['calibrated']")
check "on a device the profile did not measure, the validation band" \
	"[ '$cal' = False ]"
cal=$("$bin" infer "$serve" --gpu H100-SXM --set inference.qps=5 \
	--set inference.engine=sglang --profile "$tmp/p.ini" --format json |
	field "['interval']['calibrated']")
check "for an engine the profile did not measure, the validation band" \
	"[ '$cal' = False ]"

# every metric calibrate takes (as its error lists them) has an interval
# in the JSON of its command
metrics_of() { # COMMAND WORKLOAD: the list in calibrate's error
	printf 'command,workload,gpu,gpus,set,metric,measured\n%s,%s,H100-SXM,,,nothing,1\n' \
		"$1" "$2" >"$tmp/list.csv"
	"$bin" calibrate "$tmp/list.csv" 2>&1 >/dev/null |
		sed -n 's/.*expected one of //p' | tr -d ' ' | tr ',' ' '
}
has_intervals() { # JSON METRICS...: each under "interval"
	python3 - "$@" <<'PY'
import json, sys
iv = json.load(open(sys.argv[1]))['interval']
missing = [m for m in sys.argv[2:] if m not in iv]
sys.exit(1 if missing or len(sys.argv) < 4 else 0)
PY
}
resnet=$root/examples/resnet50-imagenet.ini
"$bin" infer "$serve" --gpu H100-SXM --set inference.qps=5 --format json >"$tmp/i.json"
"$bin" infer "$resnet" --gpu H100-SXM --format json >"$tmp/s.json"
"$bin" train "$resnet" --gpu H100-SXM --format json >"$tmp/t.json"
check "train: an interval for each metric calibrate takes" \
	"has_intervals '$tmp/plain.json' $(metrics_of train "$train") &&
	 has_intervals '$tmp/t.json' $(metrics_of train "$resnet")"
check "infer: an interval for each metric calibrate takes" \
	"has_intervals '$tmp/i.json' $(metrics_of infer "$serve")"
check "infer of a per-sample model: an interval for each metric" \
	"has_intervals '$tmp/s.json' $(metrics_of infer "$resnet")"

# a vLLM benchmark result (vllm bench serve --save-result), made the same
# way, of a deployment its workload describes
python3 - "$serve" "$tmp/w.ini" <<'EOF'
import sys
s = open(sys.argv[1]).read()
s = s.replace('[inference]', '[inference]\nengine = vllm\ntp = 2\nbatch = 128\nreplicas = 4', 1)
open(sys.argv[2], 'w').write(s)
EOF
"$bin" infer "$tmp/w.ini" --gpu H100-SXM --set inference.qps=20 \
	--set inference.requests=1000 --set inference.host_request_overhead=25ms \
	--catalog "$tmp/truth.csv" --format json >"$tmp/r.json"
python3 - "$tmp/r.json" "$tmp/vllm.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
json.dump({"backend": "vllm", "num_prompts": 1000, "request_rate": 20.0,
           "burstiness": 1.0, "max_concurrency": None, "completed": 1000,
           "total_input_tokens": 1000 * 2048, "total_output_tokens": 1000 * 256,
           "request_throughput": d["request_throughput_per_s"],
           "output_throughput": d["output_tokens_per_s"],
           "mean_ttft_ms": d["ttft_mean_s"] * 1e3,
           "median_ttft_ms": d["ttft_p50_s"] * 1e3,
           "mean_tpot_ms": d["tpot_mean_s"] * 1e3,
           "median_tpot_ms": d["tpot_p50_s"] * 1e3},
          open(sys.argv[2], "w"))
EOF
"$bin" calibrate "$tmp/vllm.json" --workload "$tmp/w.ini" --gpu H100-SXM \
	--format json >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
n=$(field "['measurements']" <"$tmp/fit.json" 2>/dev/null)
check "a vLLM result: status $rc, six measurements ($n)" "[ $rc = 0 ] && [ '$n' = 6 ]"
check "from the vLLM result: H100-SXM mem_eff 0.70 within its range" \
	"inrange 'H100-SXM mem_eff' 0.70"
"$bin" calibrate "$tmp/vllm.json" >/dev/null 2>"$tmp/err"
rc=$?
check "a result without --workload and --gpu: status 2" \
	"[ $rc = 2 ] && grep -q 'give the workload it ran with --workload' '$tmp/err'"

# a Megatron-LM training log (its format from training.py's training_log)
# of a layout the workload gives, its step time made the same way: the
# GEMM efficiency comes back
{ cat "$train"; printf '[training]\ngpus = 8\ntp = 2\npp = 1\nmicro_batch = 1\nglobal_batch = 256\n'; } >"$tmp/t.ini"
step=$("$bin" train "$tmp/t.ini" --gpu H100-SXM --catalog "$tmp/truth.csv" \
	--format json | field "['step_time_s']")
python3 - "$step" "$tmp/megatron.log" <<'PY'
import sys
ms = float(sys.argv[1]) * 1e3
with open(sys.argv[2], "w") as f:
    for k, it in enumerate(range(10, 60, 10)):
        t = ms * (3.0 if k == 0 else 1.0 + 0.002 * (k % 2))
        f.write(" [2026-01-16 10:00:%02d.000001] iteration %8d/     500 | "
                "consumed samples: %12d | elapsed time per iteration (ms): "
                "%.1f | learning rate: 1.0E-04 | global batch size:   256 | "
                "lm loss: 5.0E+00 | loss scale: 1.0 |\n"
                % (k, it, it * 256, t))
PY
"$bin" calibrate "$tmp/megatron.log" --workload "$tmp/t.ini" --gpu H100-SXM \
	--format json >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
check "a Megatron-LM log: status $rc, its step time, matmul_eff 0.62 in range" \
	"[ $rc = 0 ] && [ \"\$(field \"['rows'][0]['metric']\" <'$tmp/fit.json')\" = step_time_s ] && inrange 'H100-SXM matmul_eff' 0.62"

# the collectives' efficiency: training runs measured on a cluster whose
# NVLink reaches 0.62 of its datasheet bandwidth and whose network 0.70
# (the model's 0.78 and 0.90), their layouts given; tensor parallelism
# within a node informs intra_comm_eff, across nodes and ZeRO-3 over 64
# GPUs inter_comm_eff; single-GPU serving rows depend on neither
printf '[fit]\nmeasurements = 1\nsigma_log = 0.01\n\n[device H100-SXM]\nintra_comm_eff = 0.62\ninter_comm_eff = 0.7\n' >"$tmp/comm-truth.ini"
echo "command,workload,gpu,gpus,set,metric,measured" >"$tmp/comm.csv"
for run in "8|training.tp=8;training.pp=1;training.zero=1;training.tp_comm_overlap=false" \
	"8|training.tp=4;training.pp=1;training.zero=1;training.tp_comm_overlap=false" \
	"16|training.tp=16;training.pp=1;training.zero=1" \
	"64|training.tp=1;training.pp=1;training.zero=3"; do
	g=${run%%|*}
	set=${run#*|}
	args=$(printf '%s' "$set" | tr ';' '\n' | sed 's/^/--set /' | tr '\n' ' ')
	# shellcheck disable=SC2086
	"$bin" train "$train" --gpu H100-SXM --gpus "$g" $args \
		--profile "$tmp/comm-truth.ini" --format json >"$tmp/run.json"
	v=$(field "['step_time_s']" <"$tmp/run.json")
	# the micro-batch and recomputation the truth's plan chose, as run
	ran=$(python3 -c "import json; d=json.load(open('$tmp/run.json')); print('training.micro_batch=%d;training.recompute=%s' % (d['micro_batch'], d['recompute']) + (';training.recompute_layers=%d' % d['recompute_layers'] if d['recompute_layers'] else ''))")
	echo "train,$train,H100-SXM,$g,$set;$ran,step_time_s,$v" >>"$tmp/comm.csv"
done
"$bin" calibrate "$tmp/comm.csv" -o "$tmp/comm.ini" --format json >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
check "collectives: status $rc, nothing on stderr" "[ $rc = 0 ] && [ ! -s '$tmp/err' ]"
check "H100-SXM intra_comm_eff 0.62 within its range" "inrange 'H100-SXM intra_comm_eff' 0.62"
check "H100-SXM inter_comm_eff 0.70 within its range" "inrange 'H100-SXM inter_comm_eff' 0.70"
check "the profile carries both" \
	"grep -q '^intra_comm_eff = 0.6' '$tmp/comm.ini' && grep -q '^inter_comm_eff = 0.7' '$tmp/comm.ini'"
check "a calibrated plan reproduces the cross-node run" \
	"python3 -c \"import json,subprocess; m=$(tail -2 "$tmp/comm.csv" | head -1 | cut -d, -f7); d=json.loads(subprocess.run(['$bin','train','$train','--gpu','H100-SXM','--gpus','16','--set','training.tp=16','--set','training.pp=1','--set','training.zero=1','--set','training.micro_batch=16','--set','training.recompute=none','--profile','$tmp/comm.ini','--format','json'],capture_output=True,text=True).stdout); exit(0 if abs(d['step_time_s']/m-1) < 0.03 else 1)\""
# a run on one GPU depends on no collective: the fit has no such parameter
chat=$root/examples/llama3-8b-chat.ini
printf 'command,workload,gpu,gpus,set,metric,measured\ninfer,%s,H100-SXM,,inference.tp=1,ttft_s,0.07\ninfer,%s,H100-SXM,,inference.tp=1,tpot_s,0.035\n' \
	"$chat" "$chat" >"$tmp/one.csv"
"$bin" calibrate "$tmp/one.csv" --format json >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
check "one GPU: status $rc, no collective parameter, matmul_eff fitted" \
	"[ $rc = 0 ] && python3 -c \"import json; n=[q['name'] for q in json.load(open('$tmp/fit.json'))['parameters']]; exit(0 if 'H100-SXM matmul_eff' in n and not [x for x in n if 'comm_eff' in x] else 1)\""

# a production run: its steady throughput and its GPU-hours, measured on
# a stack whose runs reach 0.6 of the steady rate (the default 0.81);
# the GPU-hours move the framework's production efficiency, not the GEMMs
echo "command,workload,gpu,gpus,set,metric,measured" >"$tmp/prod.csv"
for g in 64 256; do
	"$bin" train "$train" --gpu H100-SXM --gpus "$g" \
		--set training.production_efficiency=0.6 --format json >"$tmp/run.json"
	ran=$(python3 -c "import json; d=json.load(open('$tmp/run.json')); print('training.tp=%d;training.pp=%d;training.micro_batch=%d;training.recompute=%s' % (d['tp'], d['pp'], d['micro_batch'], d['recompute']) + (';training.recompute_layers=%d' % d['recompute_layers'] if d['recompute_layers'] else ''))")
	for met in tokens_per_s_per_gpu gpu_hours; do
		v=$(field "['$met']" <"$tmp/run.json")
		echo "train,$train,H100-SXM,$g,$ran,$met,$v" >>"$tmp/prod.csv"
	done
done
"$bin" calibrate "$tmp/prod.csv" -o "$tmp/prod.ini" --format json >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
check "production: status $rc, nothing on stderr" "[ $rc = 0 ] && [ ! -s '$tmp/err' ]"
check "generic@1 production_efficiency 0.6 within its range" \
	"inrange 'generic@1 production_efficiency' 0.6"
check "H100-SXM matmul_eff stays at its 0.75" "inrange 'H100-SXM matmul_eff' 0.75"
check "the profile has the framework's production efficiency" \
	"grep -q '^\[framework generic@1\]' '$tmp/prod.ini' && grep -q '^production_efficiency = 0.6' '$tmp/prod.ini'"
ran=$(sed -n 3p "$tmp/prod.csv" | cut -d, -f5)
args=$(printf '%s' "$ran" | tr ';' '\n' | sed 's/^/--set /' | tr '\n' ' ')
# shellcheck disable=SC2086
"$bin" train "$train" --gpu H100-SXM --gpus 64 $args --profile "$tmp/prod.ini" \
	--format json >"$tmp/run.json"
want=$(sed -n 3p "$tmp/prod.csv" | cut -d, -f7)
check "a plan with it reproduces the GPU-hours and says its efficiency" \
	"python3 -c \"import json; d=json.load(open('$tmp/run.json')); exit(0 if abs(d['gpu_hours'] / $want - 1) < 0.01 and abs(d['production_efficiency'] - 0.6) < 0.01 else 1)\""
# two production runs that agree give the production figures a band of
# their own (about +-13%), not the public production runs' (0.2x-3x)
check "the profile has the band of its two production runs" \
	"grep -q '^\[interval production\]' '$tmp/prod.ini'"
check "the GPU-hours interval is that band's and holds the measurement" \
	"python3 -c \"import json; d=json.load(open('$tmp/run.json')); lo, hi = d['interval']['gpu_hours']; exit(0 if lo <= $want <= hi and hi / lo < 1.5 and d['interval']['calibrated'] else 1)\""
head -3 "$tmp/prod.csv" >"$tmp/prod1.csv"
"$bin" calibrate "$tmp/prod1.csv" -o "$tmp/prod1.ini" >/dev/null 2>"$tmp/err"
# shellcheck disable=SC2086
"$bin" train "$train" --gpu H100-SXM --gpus 64 $args --profile "$tmp/prod1.ini" \
	--format json >"$tmp/run1.json"
check "one production run: no production band, the public spread stays" \
	"! grep -q '^\[interval production\]' '$tmp/prod1.ini' && python3 -c \"import json; d=json.load(open('$tmp/run1.json')); lo, hi = d['interval']['gpu_hours']; exit(0 if hi / lo > 3 else 1)\""
# shellcheck disable=SC2086
"$bin" train "$train" --gpu H100-SXM --gpus 64 $args --profile "$tmp/prod.ini" \
	--set training.production_efficiency=0.9 --format json >"$tmp/run.json"
check "a production_efficiency the workload gives keeps its value" \
	"python3 -c \"import json; d=json.load(open('$tmp/run.json')); exit(0 if abs(d['production_efficiency'] - 0.9) < 1e-9 else 1)\""

# a recommender served on a stack whose framework calls take 400 us a
# batch (the default 80): its latencies at three batches give the
# stack's framework_overhead; with CUDA graphs (a recommender's default)
# there is no launch_overhead to fit
dlrm=$root/examples/dlrm-criteo.ini
echo "command,workload,gpu,gpus,set,metric,measured" >"$tmp/smp.csv"
for b in 64 2048 32768; do
	v=$("$bin" infer "$dlrm" --gpu A100-SXM-80GB --set inference.batch=$b \
		--set inference.framework_overhead=400us --format json | field "['latency_s']")
	echo "infer,$dlrm,A100-SXM-80GB,,inference.batch=$b,latency_s,$v" >>"$tmp/smp.csv"
done
"$bin" calibrate "$tmp/smp.csv" -o "$tmp/smp.ini" --format json >"$tmp/fit.json" 2>"$tmp/err"
rc=$?
check "per-sample serving: status $rc, nothing on stderr" "[ $rc = 0 ] && [ ! -s '$tmp/err' ]"
check "generic@1 framework_overhead 400 us within its range" \
	"inrange 'generic@1 framework_overhead' 0.0004"
check "no launch_overhead under CUDA graphs" \
	"python3 -c \"import json; exit(1 if [q for q in json.load(open('$tmp/fit.json'))['parameters'] if 'launch_overhead' in q['name']] else 0)\""
v=$("$bin" infer "$dlrm" --gpu A100-SXM-80GB --set inference.batch=64 \
	--profile "$tmp/smp.ini" --format json | field "['latency_s']")
want=$(sed -n 2p "$tmp/smp.csv" | cut -d, -f7)
check "a plan with the profile reproduces the batch-64 latency" \
	"python3 -c 'exit(0 if abs($v / $want - 1) < 0.01 else 1)'"
"$bin" infer "$chat" --gpu A100-SXM-80GB --profile "$tmp/smp.ini" >/dev/null 2>"$tmp/err"
rc=$?
check "a transformer on the same engine takes none of it: status $rc" "[ $rc = 0 ]"

# the table's parameter column widens to a long framework's name, so the
# columns stay aligned
printf 'command,workload,gpu,gpus,set,metric,measured\ntrain,%s,H100-SXM,64,training.framework=megatron-deepspeed,tokens_per_s_per_gpu,9000\ntrain,%s,H100-SXM,64,training.framework=megatron-deepspeed,gpu_hours,700000\n' \
	"$train" "$train" >"$tmp/long.csv"
"$bin" calibrate "$tmp/long.csv" >"$tmp/out" 2>"$tmp/err"
check "a long parameter name: its row whole, the columns aligned" \
	"python3 - '$tmp/out' <<'PY'
import sys
lines = open(sys.argv[1]).read().split('\\n')
h = [l for l in lines if l.startswith('parameter ')][0]
end = h.index('rows') + 4
rows = lines[lines.index(h) + 1:]
rows = rows[:rows.index('')]
ok = any('megatron-deepspeed@2024.12 production_efficiency' in r for r in rows)
ok = ok and all(r[end - 1].isdigit() and r[end - 5] == ' ' for r in rows)
sys.exit(0 if ok else 1)
PY"

# more parameters than a fit holds (64): 22 devices serving at tp 2, each
# with its GEMM, memory and NVLink efficiencies
echo "command,workload,gpu,gpus,set,metric,measured" >"$tmp/many.csv"
n=0
for g in $("$bin" catalog --format csv | tail -n +2 | cut -d, -f1); do
	"$bin" infer "$chat" --gpu "$g" --set inference.tp=2 --format json \
		>/dev/null 2>&1 || continue
	echo "infer,$chat,$g,,inference.tp=2,ttft_s,0.05" >>"$tmp/many.csv"
	n=$((n + 1))
	[ $n -ge 22 ] && break
done
"$bin" calibrate "$tmp/many.csv" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "too many parameters: status 3, says so, nothing on stdout" \
	"[ $rc = 3 ] && [ ! -s '$tmp/out' ] && grep -q 'more than 64 parameters (22 devices, 1 engine, 0 frameworks)' '$tmp/err'"

# errors
printf 'command,workload,gpu,gpus,set,metric,measured\ntrain,%s,H100-SMX,8,,mfu,0.4\n' \
	"$train" >"$tmp/bad-gpu.csv"
"$bin" calibrate "$tmp/bad-gpu.csv" >/dev/null 2>"$tmp/err"
rc=$?
check "unknown gpu: status 3, at its line and column" \
	"[ $rc = 3 ] && grep -q 'bad-gpu.csv:2:[0-9]*: unknown gpu' '$tmp/err'"
printf 'command,workload,gpu,gpus,set,metric,measured\ntrain,%s,H100-SXM,8,,speed,0.4\n' \
	"$train" >"$tmp/bad-metric.csv"
"$bin" calibrate "$tmp/bad-metric.csv" >/dev/null 2>"$tmp/err"
rc=$?
check "unknown metric: status 3, names it and what is taken" \
	"[ $rc = 3 ] && grep -q \"bad-metric.csv:2:[0-9]*: 'speed' is not a metric calibrate takes for 'train': expected one of step_time_s, \" '$tmp/err'"
printf 'command,workload,gpu,gpus,set,metric,measured\ntrain,%s,H100-SXM,8,training.tq=2,mfu,0.4\n' \
	"$train" >"$tmp/bad-set.csv"
"$bin" calibrate "$tmp/bad-set.csv" >/dev/null 2>"$tmp/err"
rc=$?
check "a bad set: status 3, at the set column" \
	"[ $rc = 3 ] && grep -q 'bad-set.csv:2:[0-9]*: unknown key' '$tmp/err'"
"$bin" calibrate "$tmp/m.csv" -o "$tmp/no/such/p.ini" >"$tmp/out" 2>"$tmp/err"
rc=$?
check "a profile that cannot be written: status 4 before the fit, nothing printed" \
	"[ $rc = 4 ] && [ ! -s '$tmp/out' ] && grep -q 'cannot write' '$tmp/err'"
"$bin" calibrate "$tmp/missing.csv" >/dev/null 2>"$tmp/err"
rc=$?
check "a missing file: status 4" "[ $rc = 4 ]"
"$bin" calibrate >/dev/null 2>"$tmp/err"
rc=$?
check "no file: status 2" "[ $rc = 2 ]"
printf '[device H100-SXM]\nmatmul_eff = 7\n' >"$tmp/bad.ini"
"$bin" train "$train" --gpu H100-SXM --profile "$tmp/bad.ini" >/dev/null 2>"$tmp/err"
rc=$?
check "a bad profile: status 3, at its line" \
	"[ $rc = 3 ] && grep -q 'bad.ini:2:' '$tmp/err'"
echo "calibrate: $pass passed, $fail failed"
[ $fail = 0 ]
