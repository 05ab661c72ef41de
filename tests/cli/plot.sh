#!/bin/sh
# plot.sh BIN: 'capplan plot': every chart kind rendered to PNG and SVG
# (when gnuplot is installed; in CI it must be), --keep-script, a missing or failing
# gnuplot, and hostile device, workload and file names that must stay
# inert in the gnuplot script.  Ends with "plot: N passed, M failed".
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d)
pwned=/tmp/pwned-capplan-$$
trap 'rm -rf "$tmp" "$pwned"' EXIT
pass=0
fail=0
check() {
	if eval "$2"; then pass=$((pass + 1)); else
		echo "FAIL $1"
		fail=$((fail + 1))
	fi
}
# In CI (CI set, as CI services do and .ci/run does) gnuplot is installed
# (scripts/deps.sh) and its absence fails; elsewhere the rendering checks
# are skipped with a notice.
have_gnuplot=0
if command -v gnuplot >/dev/null 2>&1; then
	have_gnuplot=1
else
	case ${CI:-} in
	'' | 0 | false)
		echo "SKIP plot: gnuplot not found: rendering checks skipped (sh scripts/deps.sh installs gnuplot-nox)"
		;;
	*)
		echo "FAIL plot: gnuplot not found in CI (CI=$CI); scripts/deps.sh installs gnuplot-nox"
		fail=$((fail + 1))
		;;
	esac
fi
# size in bytes of a file (0 when missing)
size() { if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi; }
# no temporary file left in a folder
no_temps() { ! ls "$1" | grep -q '\.tmp'; }

wl=examples/llama3-8b.ini
# a workload that trains and serves, under latency targets
slo="--set inference.prompt_tokens=512 --set inference.output_tokens=256
--set inference.ttft_slo=500ms --set inference.tpot_slo=50ms"
gpus=H100-SXM,MI300X
kinds="scaling cost-time memory roofline latency-throughput replicas energy"
# the kinds of a model costed per sample
sample_kinds="scaling cost-time memory latency-throughput replicas energy"
# the cache chart's workload: a chat load with a prefix cache, and a host
# tier under it (on a smaller GPU share, where the tier matters)
chat=examples/llama3-8b-chat.ini
host_tier="--set inference.kv_offload_memory=16GB --set inference.memory_fraction=0.5"

# usage errors
"$bin" plot scaling $wl >/dev/null 2>"$tmp/err"
check "-o is required (status 2)" '[ $? -eq 2 ] && grep -q "needs -o" "$tmp/err"'
"$bin" plot scaling $wl -o "$tmp/x.pdf" 2>"$tmp/err"
check "a .pdf output is a usage error" '[ $? -eq 2 ] && [ ! -e "$tmp/x.pdf" ]'
"$bin" plot nope $wl -o "$tmp/x.png" 2>"$tmp/err"
check "an unknown kind is a usage error" '[ $? -eq 2 ] && grep -q "one of: scaling" "$tmp/err"'
"$bin" plot scaling $wl -o "$tmp/x.png" --size 10x10 2>"$tmp/err"
check "a bad --size is a usage error" '[ $? -eq 2 ] && [ -z "$(ls "$tmp" | grep -v err)" ]'

if [ $have_gnuplot = 1 ]; then
	mkdir "$tmp/r"
	for k in $kinds; do
		# shellcheck disable=SC2086
		"$bin" plot $k $wl --gpu $gpus $slo -o "$tmp/r/$k.png" 2>"$tmp/err"
		rc=$?
		check "$k png (status $rc)" '[ $rc -eq 0 ] && [ "$(head -c 4 "$tmp/r/$k.png" | tail -c 3)" = PNG ] && [ $(size "$tmp/r/$k.png") -gt 10000 ]'
		# shellcheck disable=SC2086
		"$bin" plot $k $wl --gpu $gpus $slo -o "$tmp/r/$k.svg" --size 800x500 2>"$tmp/err"
		rc=$?
		check "$k svg (status $rc)" '[ $rc -eq 0 ] && head -c 100 "$tmp/r/$k.svg" | grep -q "^<?xml\|^<svg" && [ $(size "$tmp/r/$k.svg") -gt 5000 ]'
	done
	check "no .gp, .dat or temporary file without --keep-script" \
		'[ $(ls "$tmp/r" | wc -l) -eq 14 ] && ! ls "$tmp/r" | grep -q "\.gp\|\.dat\|\.tmp"'
	# the cache chart: a chat load with vLLM 0.11's prefix cache, the
	# KV-cache memory swept, then a host tier
	"$bin" plot cache $chat --gpu $gpus -o "$tmp/r/cache.png" 2>"$tmp/err"
	rc=$?
	check "cache png (status $rc)" '[ $rc -eq 0 ] && [ "$(head -c 4 "$tmp/r/cache.png" | tail -c 3)" = PNG ] && [ $(size "$tmp/r/cache.png") -gt 10000 ] && ! grep -qv "^capplan: note: cache: [0-9] of 6 points not drawn" "$tmp/err"'
	"$bin" plot cache $chat --gpu $gpus $host_tier -o "$tmp/r/cache.svg" --size 800x500 2>"$tmp/err"
	rc=$?
	check "cache svg of a host tier (status $rc)" '[ $rc -eq 0 ] && head -c 100 "$tmp/r/cache.svg" | grep -q "^<?xml\|^<svg" && [ $(size "$tmp/r/cache.svg") -gt 5000 ] && ! grep -qv "^capplan: note: cache: [0-9] of 6 points not drawn" "$tmp/err"'
	rm -f "$tmp/r/cache.png" "$tmp/r/cache.svg"
	check "--size sets the SVG size" 'grep -q "width=\"800\"" "$tmp/r/scaling.svg"'

	"$bin" plot memory $wl --gpu $gpus -o "$tmp/k.png" --keep-script
	check "--keep-script keeps the chart, .gp and .dat" \
		'[ $? -eq 0 ] && [ -s "$tmp/k.png" ] && [ -s "$tmp/k.gp" ] && [ -s "$tmp/k.dat" ] && no_temps "$tmp"'
	check "the kept script names the final files" \
		'grep -q "^set output '"'"'$tmp/k.png'"'"'\$" "$tmp/k.gp" && grep -q "^data = '"'"'$tmp/k.dat'"'"'\$" "$tmp/k.gp"'
	rm -f "$tmp/k.png"
	check "the kept script redraws the chart" \
		'gnuplot "$tmp/k.gp" 2>/dev/null && [ -s "$tmp/k.png" ]'

	# gnuplot fails: nothing is left behind
	mkdir "$tmp/bin" "$tmp/f"
	printf '#!/bin/sh\necho "gnuplot: broken" >&2\nexit 3\n' >"$tmp/bin/gnuplot"
	chmod +x "$tmp/bin/gnuplot"
	PATH="$tmp/bin:$PATH" "$bin" plot scaling $wl --gpu H100-SXM -o "$tmp/f/c.png" 2>"$tmp/err"
	check "a failing gnuplot gives status 4 and no file" \
		'[ $? -eq 4 ] && grep -q "gnuplot failed with exit status 3" "$tmp/err" && [ -z "$(ls "$tmp/f")" ]'

	# a name that starts with '-' is a file, for gnuplot too
	mkdir "$tmp/dash"
	(cd "$tmp/dash" && "$bin" plot scaling "$OLDPWD/$wl" --gpu H100-SXM -o -dash.svg 2>"$tmp/err")
	check "-o -dash.svg draws the chart" \
		'[ $? -eq 0 ] && head -c 100 "$tmp/dash/-dash.svg" | grep -q "^<?xml\|^<svg" && no_temps "$tmp/dash"'
	(cd "$tmp/dash" && "$bin" compare "$OLDPWD/$wl" --gpu H100-SXM --plot -dir >/dev/null 2>"$tmp/err")
	check "--plot -dir draws the set" \
		'[ $? -eq 0 ] && [ $(ls "$tmp/dash/-dir"/*.svg | wc -l) -eq 7 ] && no_temps "$tmp/dash/-dir"'

	# --plot DIR on compare and size: the standard set, data and scripts
	# shellcheck disable=SC2086
	"$bin" compare $wl --gpu $gpus $slo --plot "$tmp/set" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "compare --plot draws every kind (status $rc)" \
		'[ $rc -eq 0 ] && [ $(ls "$tmp/set"/*.svg | wc -l) -eq 7 ] && [ $(ls "$tmp/set"/*.gp | wc -l) -eq 7 ] && [ $(ls "$tmp/set"/*.dat | wc -l) -eq 7 ] && no_temps "$tmp/set"'
	check "compare --plot: the table and a note on stdout" \
		'grep -q "^H100-SXM\|^MI300X" "$tmp/out" && grep -q "charts of the best 2 devices in $tmp/set" "$tmp/out"'
	check "compare --plot: every SVG is a chart" \
		'(for f in "$tmp/set"/*.svg; do head -c 100 "$f" | grep -q "^<?xml\|^<svg" && [ $(size "$f") -gt 5000 ] || exit 1; done)'
	# the serving plans the table made are the charts' (cli_infer_plan
	# keeps them): the charts of the best devices, whose order is not
	# the catalog's, equal those drawn on their own with --gpu
	"$bin" compare examples/llama3-70b-serving.ini --plot "$tmp/best" >/dev/null 2>&1
	best=$(sed -n "s/^# row [0-9]*: '\(.*\)'$/\1/p" "$tmp/best/energy.dat" | paste -sd, -)
	for k in roofline latency-throughput energy; do
		"$bin" plot $k examples/llama3-70b-serving.ini --gpu "$best" -o "$tmp/best-$k.svg" --keep-script 2>/dev/null
	done
	check "compare --plot of the best devices ($best): the charts plot draws of them" \
		'[ -n "$best" ] && cmp -s "$tmp/best/roofline.dat" "$tmp/best-roofline.dat" && cmp -s "$tmp/best/latency-throughput.dat" "$tmp/best-latency-throughput.dat" && cmp -s "$tmp/best/energy.dat" "$tmp/best-energy.dat"'
	"$bin" compare examples/llama3-8b-fleet.ini --gpu H100-SXM --plot "$tmp/serve" >/dev/null 2>&1
	check "compare --plot of a workload that only serves: no training chart (issue 40)" \
		'[ $? -eq 0 ] && [ "$(cd "$tmp/serve" && ls *.svg | tr "\n" " ")" = "energy.svg latency-throughput.svg replicas.svg roofline.svg " ]'
	"$bin" compare examples/resnet50-imagenet.ini --gpu $gpus --plot "$tmp/gen" >/dev/null 2>&1
	check "compare --plot of a per-sample model: every kind but the roofline" \
		'[ $? -eq 0 ] && [ "$(cd "$tmp/gen" && ls *.svg | tr "\n" " ")" = "cost-time.svg energy.svg latency-throughput.svg memory.svg replicas.svg scaling.svg " ]'
	# per-sample charts render, in samples
	for w in dlrm-criteo resnet50-onnx; do
		for k in $sample_kinds; do
			"$bin" plot $k examples/$w.ini --gpu $gpus -o "$tmp/r/$w-$k.png" 2>"$tmp/err"
			rc=$?
			check "$w $k png (status $rc)" '[ $rc -eq 0 ] && [ "$(head -c 4 "$tmp/r/$w-$k.png" | tail -c 3)" = PNG ] && [ $(size "$tmp/r/$w-$k.png") -gt 10000 ]'
		done
	done
	"$bin" plot roofline examples/dlrm-criteo.ini -o "$tmp/r/roof.png" 2>"$tmp/err"
	check "a per-sample roofline is refused (status 2), naming what covers it" \
		'[ $? -eq 2 ] && grep -q "every chart but the roofline" "$tmp/err" && [ ! -e "$tmp/r/roof.png" ]'
	"$bin" size examples/llama3-70b.ini --deadline 60d --gpu $gpus --plot "$tmp/size" >/dev/null 2>&1
	check "size --plot draws the set" '[ $? -eq 0 ] && [ $(ls "$tmp/size"/*.svg | wc -l) -eq 7 ]'
	# --plot-format png: the same set as PNG
	# shellcheck disable=SC2086
	"$bin" compare $wl --gpu $gpus $slo --plot "$tmp/pngset" --plot-format png >/dev/null 2>&1
	check "compare --plot-format png draws PNG charts" \
		'[ $? -eq 0 ] && [ $(ls "$tmp/pngset"/*.png | wc -l) -eq 7 ] && ! ls "$tmp/pngset" | grep -q "\.svg" && (for f in "$tmp/pngset"/*.png; do [ "$(head -c 4 "$f" | tail -c 3)" = PNG ] || exit 1; done)'
	"$bin" size examples/llama3-70b.ini --deadline 60d --gpu $gpus --plot "$tmp/sizepng" --plot-format png >/dev/null 2>&1
	check "size --plot-format png draws PNG charts" '[ $? -eq 0 ] && [ $(ls "$tmp/sizepng"/*.png | wc -l) -eq 7 ]'
	# the limits of the command line are drawn
	"$bin" size examples/llama3-70b.ini --deadline 60d --budget 20M --gpu $gpus --plot "$tmp/lim" >/dev/null 2>&1
	check "size --plot draws the deadline and the budget" \
		'grep -q "deadline (60 days)" "$tmp/lim/cost-time.gp" && grep -q "budget (\$20M)" "$tmp/lim/cost-time.gp" && grep -q "deadline (60 days)" "$tmp/lim/scaling.gp"'
fi

# --plot-format: png or svg, and only with --plot
"$bin" compare $wl --gpu H100-SXM --plot-format png >"$tmp/out" 2>"$tmp/err"
check "--plot-format without --plot is a usage error" \
	'[ $? -eq 2 ] && grep -q "needs --plot DIR" "$tmp/err" && [ ! -s "$tmp/out" ]'
"$bin" compare $wl --gpu H100-SXM --plot "$tmp/pdf" --plot-format pdf >"$tmp/out" 2>"$tmp/err"
check "--plot-format pdf is a usage error" \
	'[ $? -eq 2 ] && grep -q "png or svg" "$tmp/err" && [ ! -e "$tmp/pdf" ]'


# --plot DIR when no device is feasible: status 1, a note, no chart
"$bin" compare $wl --gpu Jetson-Orin-Nano-8GB --gpus 8 --plot "$tmp/none" >"$tmp/out" 2>"$tmp/err"
check "compare --plot with nothing feasible: status 1, no chart" \
	'[ $? -eq 1 ] && grep -q "no device has a plan to draw" "$tmp/err" && [ -z "$(ls "$tmp/none")" ] && ! grep -q "charts of the best" "$tmp/out"'

# --plot DIR that cannot be a folder: status 4 before any output
: >"$tmp/afile"
"$bin" compare $wl --gpu H100-SXM --plot "$tmp/afile" >"$tmp/out" 2>"$tmp/err"
check "compare --plot on a file: status 4, nothing on stdout" \
	'[ $? -eq 4 ] && [ ! -s "$tmp/out" ] && grep -q "cannot use .* as a folder: not a folder" "$tmp/err"'
"$bin" size $wl --gpu H100-SXM --plot "$tmp/nodir/deeper" >"$tmp/out" 2>"$tmp/err"
check "size --plot under a missing folder: status 4, nothing on stdout" \
	'[ $? -eq 4 ] && [ ! -s "$tmp/out" ]'

# golden data files: each kind's .dat (what the chart shows) for fixed
# devices, written without gnuplot (tests/cli/data/plot/; UPDATE=1
# rewrites them)
mkdir "$tmp/g"
for k in $kinds; do
	# shellcheck disable=SC2086
	(cd "$tmp/g" && PATH=/nonexistent "$bin" plot $k "$OLDPWD/$wl" --gpu $gpus $slo \
		-o "$k.svg" 2>/dev/null)
	if [ "${UPDATE:-0}" = 1 ]; then
		mkdir -p tests/cli/data/plot
		cp "$tmp/g/$k.dat" "tests/cli/data/plot/$k.dat"
	fi
	check "golden data: $k.dat matches tests/cli/data/plot/$k.dat" \
		'cmp -s "$tmp/g/$k.dat" "tests/cli/data/plot/$k.dat" || { diff "tests/cli/data/plot/$k.dat" "$tmp/g/$k.dat" | head -10; false; }'
done
# golden data of the cache chart: the KV cache halved from the
# workload's at each point; a host tier from none to four times 16 GB
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot cache "$OLDPWD/$chat" --gpu $gpus \
	-o cache.svg 2>/dev/null)
# shellcheck disable=SC2086
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot cache "$OLDPWD/$chat" --gpu $gpus \
	$host_tier -o cache-host.svg 2>/dev/null)
for k in cache cache-host; do
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$tmp/g/$k.dat" "tests/cli/data/plot/$k.dat"
	fi
	check "golden data: $k.dat matches tests/cli/data/plot/$k.dat" \
		'cmp -s "$tmp/g/$k.dat" "tests/cli/data/plot/$k.dat" || { diff "tests/cli/data/plot/$k.dat" "$tmp/g/$k.dat" | head -10; false; }'
done
check "cache: each device's fleet in its key entry, the KV cache on a log axis" \
	'grep -q "title '"'"'H100-SXM (4 replicas, tp1)'"'"'" "$tmp/g/cache.gp" && grep -q "^set xlabel '"'"'KV cache per replica (GB)'"'"'" "$tmp/g/cache.gp" && grep -q "^set logscale x 10" "$tmp/g/cache.gp"'
check "cache: the KV cache grows with memory_fraction along the points, to the workload's, with the most hits there" \
	'awk '"'"'/^# index/ { if (prev != "" && !(last > first)) bad = 1; prev = "" } /^[0-9]/ { if (prev == "") first = $4; else if (!($1 > prev && $3 > pf)) bad = 1; prev = $1; pf = $3; last = $4 } END { exit bad || !(last > first) }'"'"' "$tmp/g/cache.dat" && awk '"'"'/^[0-9]/ && $3 == 0.9 { n++ } END { exit n != 2 }'"'"' "$tmp/g/cache.dat"'
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot cache "$OLDPWD/$chat" --gpu H100-SXM \
	-o one.svg 2>"$tmp/err")
check "cache: a point the device cannot serve is said on stderr" \
	'grep -q "^capplan: note: cache: 1 of 6 points not drawn for '"'"'H100-SXM'"'"' (at memory_fraction 0.234: request [0-9]* needs [0-9]* KV-cache blocks" "$tmp/err" && [ $(grep -c "^[0-9]" "$tmp/g/one.dat") -eq 5 ]'
check "cache: the TTFT SLO and the overloaded points drawn" \
	'grep -q "TTFT SLO (1000 ms)" "$tmp/g/cache.gp" && grep -q "overloaded" "$tmp/g/cache.gp"'
check "cache: a host tier from 0 to 4 x 16 GB, its share dashed" \
	'grep -q "^set xlabel '"'"'host tier per replica (GB)'"'"'" "$tmp/g/cache-host.gp" && grep -q "of them from the host tier" "$tmp/g/cache-host.gp" && awk '"'"'/^[0-9]/ { n++; if ($2 == 0) z++; if ($2 == 64) f++ } END { exit !(n == 12 && z == 2 && f == 2) }'"'"' "$tmp/g/cache-host.dat"'
# an engine whose memory share depends on the device (SGLang's rule,
# engine_limits.h) and one whose share is of the free memory (TensorRT-LLM):
# each device's last point is its engine's share; a share of the free
# memory halves with the KV cache
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot cache "$OLDPWD/$chat" \
	--gpu H100-SXM,L40S --set inference.engine=sglang -o sgl.svg 2>/dev/null)
check "cache: SGLang's share of each device at the top, the KV cache growing to it" \
	'awk '"'"'/^# index/ { i++ } /^[0-9]/ { f[i] = $3; n[i]++; if (n[i] > 1 && !($1 > p)) bad = 1; p = $1 } END { exit bad || f[1] != 0.835 || f[2] != 0.851 || n[1] < 3 || n[2] < 3 }'"'"' "$tmp/g/sgl.dat" && grep -q "memory_fraction from the engine" "$tmp/g/sgl.gp"'
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot cache "$OLDPWD/$chat" \
	--gpu H100-SXM --set inference.engine=trtllm \
	--set inference.prefix_caching=true -o trt.svg 2>/dev/null)
check "cache: a share of the free memory halves with the KV cache" \
	'awk '"'"'/^[0-9]/ { if (n++ && ($1 < 1.99 * p || $1 > 2.01 * p || $3 < 1.99 * q || $3 > 2.01 * q)) bad = 1; p = $1; q = $3 } END { exit bad || n < 4 || q != 0.9 }'"'"' "$tmp/g/trt.dat" && grep -q "(of free memory) from 0.9 down" "$tmp/g/trt.gp"'
"$bin" plot cache $wl --gpu H100-SXM -o "$tmp/g/none.svg" 2>"$tmp/err"
check "cache: a workload without a prefix cache is a usage error" \
	'[ $? -eq 2 ] && grep -q "needs a serving load simulated with a prefix cache" "$tmp/err" && [ ! -e "$tmp/g/none.svg" ]'

# golden data of the per-sample charts: a recommender and a vision
# network from its ONNX graph (tests/cli/data/plot/sample/), serving
# under a latency target of a batch
for w in dlrm-criteo resnet50-onnx; do
	for k in $sample_kinds; do
		(cd "$tmp/g" && PATH=/nonexistent "$bin" plot $k "$OLDPWD/examples/$w.ini" \
			--gpu $gpus --set inference.ttft_slo=20ms -o "$w-$k.svg" 2>/dev/null)
		if [ "${UPDATE:-0}" = 1 ]; then
			mkdir -p tests/cli/data/plot/sample
			cp "$tmp/g/$w-$k.dat" "tests/cli/data/plot/sample/$w-$k.dat"
		fi
		check "golden data: sample/$w-$k.dat" \
			'cmp -s "$tmp/g/$w-$k.dat" "tests/cli/data/plot/sample/$w-$k.dat" || { diff "tests/cli/data/plot/sample/$w-$k.dat" "$tmp/g/$w-$k.dat" | head -10; false; }'
	done
done
check "per-sample charts: columns in samples" \
	'grep -q "^# columns: gpus samples_per_s_per_gpu ideal_samples_per_s_per_gpu goodput" "$tmp/g/dlrm-criteo-scaling.dat" && grep -q "^# columns: time_days usd_per_million_samples gpus" "$tmp/g/dlrm-criteo-cost-time.dat" && grep -q "^# columns: batch samples_per_s_per_gpu latency_ms" "$tmp/g/resnet50-onnx-latency-throughput.dat" && grep -q "^# columns: row train_j_per_million_samples serve_j_per_million_samples" "$tmp/g/resnet50-onnx-energy.dat"'
check "per-sample latency chart: the latency target drawn" \
	'grep -q "latency SLO (20 ms)" "$tmp/g/dlrm-criteo-latency-throughput.gp" && grep -q "latency of a batch at most 20 ms" "$tmp/g/dlrm-criteo-replicas.gp"'
# the limits of the command line are drawn: size's deadline and budget
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot cost-time "$OLDPWD/examples/llama3-70b.ini" \
	--gpu H100-SXM -o ct.svg 2>/dev/null)
check "cost-time: no limit line without limits" '! grep -q "deadline\|budget" "$tmp/g/ct.gp"'
# the replicas key names the latency targets that are set, only those
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot replicas "$OLDPWD/$wl" --gpu H100-SXM \
	--set inference.tpot_slo=50ms -o rep-tpot.svg 2>/dev/null)
check "replicas: a TPOT target alone, no TTFT of 0 ms" \
	'grep -q "title '"'"'p99 SLO: TPOT 50 ms'"'"'\$" "$tmp/g/rep-tpot.gp" && ! grep -q "TTFT" "$tmp/g/rep-tpot.gp"'
check "replicas: both targets" \
	'grep -q "title '"'"'p99 SLO: TTFT 500 ms, TPOT 50 ms'"'"'\$" "$tmp/g/replicas.gp"'
# memory: the optimizer states offloaded to host memory (70B on 8 GPUs
# of 80 GB) are written above the bar and are the last column
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot memory "$OLDPWD/examples/llama3-70b.ini" \
	--gpu H100-SXM,MI300X --gpus 8 -o mem-off.svg 2>/dev/null)
check "memory: offloaded optimizer states written above the bar" \
	'grep -q "'"'"'optimizer on host: [0-9.]* GB'"'"' at first 0," "$tmp/g/mem-off.gp" && awk '"'"'/^0 / { exit !($8 > 0) }'"'"' "$tmp/g/mem-off.dat"'
check "memory: nothing on host without an offload" \
	'! grep -q "on host" "$tmp/g/memory.gp"'
# scaling: the goodput in the key once when every device has the same,
# else each device's own, with its GPU counts
check "scaling: one goodput line for devices that have the same" \
	'grep -q "lt nodraw title '"'"'goodput [0-9.]*% at 8 to [0-9.]*% at 16K GPUs, the same on every device'"'"'" "$tmp/g/scaling.gp" && ! grep -q "H100-SXM (goodput" "$tmp/g/scaling.gp"'
(cd "$tmp/g" && PATH=/nonexistent "$bin" plot scaling "$OLDPWD/$wl" \
	--gpu H100-SXM,GH200 -o sc-own.svg 2>/dev/null)
check "scaling: each device its own goodput where they differ" \
	'grep -q "title '"'"'H100-SXM (goodput [0-9.]*% at 8 to [0-9.]*% at 16K GPUs)'"'"'" "$tmp/g/sc-own.gp" && grep -q "title '"'"'GH200 (goodput [0-9.]*% at 4 to " "$tmp/g/sc-own.gp" && ! grep -q nodraw "$tmp/g/sc-own.gp"'
# roofline: the intensity axis is a decade (to a 1, 2 or 5) beyond the
# points and ridges on each side
check "roofline: the axis ranged to the points, a decade beyond" \
	'awk '"'"'/^-?[0-9]/ { if ($1 < 0) { lo = (lo == "" || $2 < lo) ? $2 : lo; hi = $2 > hi ? $2 : hi } else { p = (p == "" || $2 < p) ? $2 : p; q = $2 > q ? $2 : q } } END { exit !(lo <= p / 10 && lo >= p / 25 && hi >= q * 10 && hi <= q * 25) }'"'"' "$tmp/g/roofline.dat" && grep -q "^set xrange \[[0-9]*:[0-9]*\]\$" "$tmp/g/roofline.gp"'
# cost-time: each label of the front at its own spot (offset graph)
check "cost-time: front labels placed off the points" \
	'[ "$(grep -c "^set label .* offset graph " "$tmp/g/cost-time.gp")" -eq "$(grep -c "^set label " "$tmp/g/cost-time.gp")" ] && grep -q "^set label " "$tmp/g/cost-time.gp"'

# gnuplot missing: the script and the data stay, status 4
mkdir "$tmp/m"
PATH=/nonexistent "$bin" plot scaling $wl --gpu H100-SXM -o "$tmp/m/c.svg" 2>"$tmp/err"
rc=$?
check "missing gnuplot gives status 4" '[ $rc -eq 4 ]'
check "missing gnuplot: the documented message" \
	'[ "$(cat "$tmp/err")" = "capplan: gnuplot not found: wrote $tmp/m/c.gp and $tmp/m/c.dat; run '"'"'gnuplot $tmp/m/c.gp'"'"' to draw the chart" ]'
check "missing gnuplot: .gp and .dat kept, no chart, no temporary file" \
	'[ -s "$tmp/m/c.gp" ] && [ -s "$tmp/m/c.dat" ] && [ "$(ls "$tmp/m" | wc -l)" -eq 2 ]'
"$bin" plot scaling $wl --gpu H100-SXM -o "$tmp/nodir/c.png" 2>"$tmp/err"
check "a missing folder gives status 4" '[ $? -eq 4 ] && grep -q "cannot write" "$tmp/err"'

# a fatal signal while gnuplot runs: gnuplot is stopped, no temporary
# file (X.dat.tmp*, X.gp.tmp*, X.png.tmp*) stays, and capplan dies of the
# signal
mkdir "$tmp/slow" "$tmp/sig"
printf '#!/bin/sh\necho $$ >"%s/gnuplot.pid"\nexec sleep 30\n' "$tmp/sig" >"$tmp/slow/gnuplot"
chmod +x "$tmp/slow/gnuplot"
# (a shell starts background jobs with SIGINT ignored, and capplan keeps
# an ignored signal ignored: GNU env restores the default for INT)
sigs="TERM HUP"
if env --default-signal=INT true 2>/dev/null; then
	sigs="$sigs INT"
else
	echo "SKIP plot: SIGINT check needs env --default-signal (GNU coreutils 8.31)"
fi
for sig in $sigs; do
	rm -f "$tmp/sig/gnuplot.pid"
	restore=
	[ $sig = INT ] && restore=--default-signal=INT
	PATH="$tmp/slow:$PATH" env $restore "$bin" plot scaling $wl \
		--gpu H100-SXM -o "$tmp/sig/c.png" 2>"$tmp/err" &
	pid=$!
	i=0
	while [ $i -lt 100 ] && [ ! -s "$tmp/sig/gnuplot.pid" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -s $sig $pid
	wait $pid 2>/dev/null
	rc=$?
	gp=$(cat "$tmp/sig/gnuplot.pid" 2>/dev/null)
	check "SIG$sig during plot: no temporary file, gnuplot stopped (status $rc)" \
		'[ -n "$gp" ] && ! kill -0 "$gp" 2>/dev/null && [ "$(ls "$tmp/sig")" = gnuplot.pid ] && [ $rc -gt 128 ]'
done

# hostile names: a device, a workload and a file name with quotes,
# backquotes, semicolons and system() calls
head -n 1 tests/cli/data/cat-ok.csv >"$tmp/cat.csv"
row=$(sed -n 2p tests/cli/data/cat-ok.csv | cut -d, -f2-)
# (device names have no blanks: the commands redirect instead)
echo "x';system('id>$pwned');'a,$row" >>"$tmp/cat.csv"
echo "y\`id>$pwned\`;!id,$row" >>"$tmp/cat.csv"
sed "s|^name = .*|name = w'); system('touch $pwned'); print('|" $wl >"$tmp/evil.ini"
mkdir "$tmp/h"
# the chart's own name, relative: gnuplot runs in capplan's folder
out="o';system('touch pwned-out');'\`touch pwned-out\`.svg"
gp="o';system('touch pwned-out');'\`touch pwned-out\`.gp"
inert='[ ! -e "$pwned" ] && [ ! -e "$tmp/h/pwned-out" ]'
for k in $kinds; do
	# shellcheck disable=SC2086
	(cd "$tmp/h" && PATH=/nonexistent "$bin" plot $k "$tmp/evil.ini" \
		--catalog "$tmp/cat.csv" $slo \
		--gpu "x';system('id>$pwned');'a,y\`id>$pwned\`;!id" \
		-o "$out" 2>"$tmp/err")
	rc=$?
	check "hostile names: $k script written (status $rc)" '[ $rc -eq 4 ] && [ -s "$tmp/h/$gp" ]'
	if [ $have_gnuplot = 1 ]; then
		(cd "$tmp/h" && gnuplot "$gp" 2>"$tmp/err")
		check "hostile names: gnuplot draws $k" '[ -s "$tmp/h/$out" ]'
		rm -f "$tmp/h/$out"
	fi
	check "hostile names: $k ran nothing" "$inert"
done
# the cache chart of a chat load, with the same names
sed "s|^name = .*|name = w'); system('touch $pwned'); print('|" $chat >"$tmp/evil-chat.ini"
(cd "$tmp/h" && PATH=/nonexistent "$bin" plot cache "$tmp/evil-chat.ini" \
	--catalog "$tmp/cat.csv" --gpu "x';system('id>$pwned');'a,y\`id>$pwned\`;!id" \
	-o "$out" 2>"$tmp/err")
rc=$?
check "hostile names: cache script written (status $rc)" '[ $rc -eq 4 ] && [ -s "$tmp/h/$gp" ]'
if [ $have_gnuplot = 1 ]; then
	(cd "$tmp/h" && gnuplot "$gp" 2>"$tmp/err")
	check "hostile names: gnuplot draws cache" '[ -s "$tmp/h/$out" ]'
	rm -f "$tmp/h/$out"
fi
check "hostile names: cache ran nothing" "$inert"
if [ $have_gnuplot = 1 ]; then
	# shellcheck disable=SC2086
	(cd "$tmp/h" && "$bin" plot scaling "$tmp/evil.ini" --catalog "$tmp/cat.csv" \
		--gpu "x';system('id>$pwned');'a" -o "$out" 2>"$tmp/err")
	check "hostile names: capplan draws the chart" '[ $? -eq 0 ] && [ -s "$tmp/h/$out" ] && '"$inert"
fi

echo "plot: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
