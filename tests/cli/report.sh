#!/bin/sh
# report.sh BIN: 'capplan report': the page (sections, at least five
# inline SVG charts, nothing loaded from the network, no script), its
# golden text (the page without the charts: tests/cli/data/report/),
# hostile names escaped, a missing gnuplot, and the page rendered by
# headless Chromium into a screenshot that is not blank.  Chromium and
# gnuplot are installed by scripts/deps.sh: in CI (CI set) their absence
# fails; elsewhere those checks are skipped with a SKIP line.
# UPDATE=1 rewrites the golden files.  Ends with "report: N passed, M
# failed".
set -u
bin=$1
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
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
in_ci() { case ${CI:-} in '' | 0 | false) return 1 ;; *) return 0 ;; esac; }
need() { # need TOOL PACKAGE: 0 when TOOL is on PATH, else SKIP or FAIL
	if command -v "$1" >/dev/null 2>&1; then return 0; fi
	if in_ci; then
		echo "FAIL report: $1 not found in CI (CI=$CI); scripts/deps.sh installs $2"
		fail=$((fail + 1))
	else
		echo "SKIP report: $1 not found: its checks skipped (sh scripts/deps.sh installs $2)"
	fi
	return 1
}
size() { if [ -f "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi; }
# the page without gnuplot's SVG (which depends on gnuplot's version)
strip_svg() { sed '/^<svg/,/^<\/svg>/d' "$1"; }
golden=tests/cli/data/report

wl=examples/llama3-70b-serving.ini
gpus=H100-SXM,H200-SXM,B200,MI300X
have_gnuplot=0
need gnuplot gnuplot-nox && have_gnuplot=1

# usage
"$bin" report $wl --gpu H100-SXM --plot-format pdf >/dev/null 2>"$tmp/err"
check "report --plot-format pdf is a usage error (status 2)" '[ $? -eq 2 ]'
"$bin" report >/dev/null 2>"$tmp/err"
check "report needs a WORKLOAD (status 2)" '[ $? -eq 2 ] && grep -q "missing the WORKLOAD" "$tmp/err"'
# a folder that is not there: one error, before any chart, nothing written
"$bin" report $wl --gpu H100-SXM -o "$tmp/none/plan.html" >/dev/null \
	2>"$tmp/err"
check "report into a missing folder: status 4, one line naming the page" \
	'[ $? -eq 4 ] && [ $(wc -l < "$tmp/err") -eq 1 ] &&
	 grep -q "cannot write .*none/plan.html" "$tmp/err" &&
	 [ ! -e "$tmp/none" ]'

if [ $have_gnuplot = 1 ]; then
	"$bin" report $wl --gpu $gpus -o "$tmp/plan.html" 2>"$tmp/err"
	rc=$?
	check "the target command writes the page (status $rc)" \
		'[ $rc -eq 0 ] && [ -s "$tmp/plan.html" ] && ! ls "$tmp" | grep -q "\.tmp"'
	n=$(grep -c "^<svg" "$tmp/plan.html")
	# a serving workload: the serving charts (roofline, latency,
	# replicas, energy), no training chart
	check "four inline SVG charts of serving ($n)" '[ $n -ge 4 ]'
	check "one page: doctype, inline style, a print style" \
		'head -1 "$tmp/plan.html" | grep -q "^<!DOCTYPE html>" && grep -q "<style>" "$tmp/plan.html" && grep -q "@media print" "$tmp/plan.html"'
	check "nothing loaded from the network, no script" \
		'! grep -Eiq "(src|href) *= *[\"'"'"']? *(https?:|//)|<link|<script|<iframe|<img|@import|url\( *[\"'"'"']? *[^#\"'"'"' ]" "$tmp/plan.html"'
	for s in "Recommendation" "Workload" "Training" \
		"Serving plan per device" "Assumptions and sources" "Charts"; do
		check "section: $s" 'grep -q "<h2>$s</h2>" "$tmp/plan.html"'
	done
	# a serving-only workload plans no training (issue 40): it says so
	# and recommends none
	check "a serving workload: training not planned, none recommended" \
		'grep -q "Not planned: the workload gives a serving load" "$tmp/plan.html" && ! grep -q "Train on" "$tmp/plan.html" && ! grep -q "Training plan per device" "$tmp/plan.html"'
	check "the charts' ids are their own (no two charts share a pattern)" \
		'[ -z "$(grep -o "id=.gpPat[^ ]*" "$tmp/plan.html" | sort | uniq -d)" ]'
	check "intervals in the plan tables" \
		'[ $(grep -o "80% interval" "$tmp/plan.html" | wc -l) -ge 4 ]'
	check "every device in the plans" \
		'(for g in H100-SXM H200-SXM B200 MI300X; do grep -q "<td class=\"t\">$g</td>" "$tmp/plan.html" || exit 1; done)'
	# the page without its charts is a golden file
	strip_svg "$tmp/plan.html" >"$tmp/page.html"
	if [ "${UPDATE:-0}" = 1 ]; then
		mkdir -p "$golden"
		cp "$tmp/page.html" "$golden/llama3-70b-serving.html"
	fi
	check "the page matches $golden/llama3-70b-serving.html" \
		'diff -u "$golden/llama3-70b-serving.html" "$tmp/page.html" >"$tmp/diff" || { head -20 "$tmp/diff"; false; }'
	# --plot-format png: the charts inline as PNG data: URIs
	"$bin" report $wl --gpu $gpus --plot-format png -o "$tmp/png.html" 2>/dev/null
	n=$(grep -o "<img alt=\"[^\"]*\" src=\"data:image/png;base64,iVBORw0KGgo" "$tmp/png.html" | wc -l)
	check "--plot-format png: the four serving charts as inline PNG ($n), no SVG" \
		'[ $n -ge 4 ] && ! grep -q "^<svg" "$tmp/png.html"'
	# to standard output: the same page
	"$bin" report $wl --gpu $gpus >"$tmp/stdout.html" 2>/dev/null
	check "-o - or no -o: the page on stdout" \
		'strip_svg "$tmp/stdout.html" | cmp -s - "$tmp/page.html"'

	# progress: on a terminal (script(1) gives one) a line on stderr for
	# work past a second, erased at the end; never in CI or a pipe.  The
	# report takes about a second here, so CAPPLAN_PROGRESS=1 draws the
	# line from the start (tests/cli/progress.sh checks the second's
	# wait)
	if command -v script >/dev/null 2>&1; then
		env -u CI CAPPLAN_PROGRESS=1 script -qec "'$bin' report $wl --gpu $gpus -o '$tmp/p1.html'" /dev/null >"$tmp/tty" 2>&1
		check "progress on a terminal, erased at the end" \
			'grep -q "report: [0-9]*/8 charts" "$tmp/tty" && [ "$(tail -c 4 "$tmp/tty" | od -An -c | tr -d " ")" = "\\r033[K" ]'
		CI=true script -qec "'$bin' report $wl --gpu $gpus -o '$tmp/p2.html'" /dev/null >"$tmp/tty" 2>&1
		check "no progress in CI, even on a terminal" '[ ! -s "$tmp/tty" ]'
	else
		echo "SKIP report: script(1) not found: the progress checks skipped"
	fi
	"$bin" report $wl --gpu $gpus -o "$tmp/p3.html" 2>"$tmp/err"
	check "no progress in a pipe: nothing on stderr" '[ ! -s "$tmp/err" ]'

	# a chat load with vLLM 0.11's prefix cache: the share of prompt
	# tokens it served under the serving table, and the cache chart
	cw=examples/llama3-8b-chat.ini
	"$bin" report $cw --gpu H100-SXM -o "$tmp/chat.html" 2>"$tmp/err"
	rc=$?
	check "chat report: written (status $rc), the cache chart among its five" \
		'[ $rc -eq 0 ] && [ $(grep -c "^<svg" "$tmp/chat.html") -eq 5 ] && grep -q "<figure id=\"chart-cache\">" "$tmp/chat.html" && grep -q "prefix-cache hits, TTFT and capacity against the KV-cache memory" "$tmp/chat.html"'
	check "chat report: the share of prompt tokens from the cache" \
		'grep -q "<p class=\"note\">With the prefix cache of vllm 0.11.0, the share of prompt tokens served from the cache under the load (their prefill is not computed again): H100-SXM [0-9.]*%.</p>" "$tmp/chat.html"'
	check "a report without a prefix cache: no cache chart, no cache line" \
		'! grep -q "chart-cache\|prefix cache" "$tmp/plan.html"'
	strip_svg "$tmp/chat.html" >"$tmp/chat-page.html"
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$tmp/chat-page.html" "$golden/llama3-8b-chat.html"
	fi
	check "the chat page matches $golden/llama3-8b-chat.html" \
		'diff -u "$golden/llama3-8b-chat.html" "$tmp/chat-page.html" >"$tmp/diff" || { head -20 "$tmp/diff"; false; }'

	# a bimodal load over two devices: a mixed fleet is cheaper than
	# either one's own, and the picks say so with the saving (size
	# --mixed's plan); one length (the 70B page) shows none
	"$bin" report examples/llama3-8b-mixed.ini --gpu H20,MI300X \
		-o "$tmp/mixed.html" 2>"$tmp/err"
	rc=$?
	check "mixed report: written (status $rc), the mix among the picks with its saving" \
		'[ $rc -eq 0 ] && grep -q "<li><b>Cheaper as a mixed fleet</b>: [0-9]* x H20 tp[0-9]* + [0-9]* x MI300X tp[0-9]*, \$[0-9.K]* a month, \$[0-9.K]* ([0-9.]*%) below the cheapest single device, [A-Z0-9]*; [0-9.KM]* output tokens/s per MW" "$tmp/mixed.html"'
	check "a report of one length: no mixed fleet" \
		'! grep -q "mixed fleet" "$tmp/plan.html"'

	# a per-sample model (a recommender): its charts and sections, in
	# samples, no per-token section
	sw=examples/dlrm-criteo.ini
	"$bin" report $sw --gpu $gpus -o "$tmp/dlrm.html" 2>"$tmp/err"
	rc=$?
	n=$(grep -c "^<svg" "$tmp/dlrm.html")
	check "per-sample report: written (status $rc) with six charts ($n)" \
		'[ $rc -eq 0 ] && [ $n -eq 6 ] && ! grep -q "id=\"chart-roofline\"" "$tmp/dlrm.html"'
	for s in "Recommendation" "Workload" "Training plan per device" \
		"Serving plan per device" "Assumptions and sources" "Charts"; do
		check "per-sample section: $s" 'grep -q "<h2>$s</h2>" "$tmp/dlrm.html"'
	done
	check "per-sample report: samples and inferences, no tokens, TTFT or TPOT" \
		'grep -q "samples/s per GPU" "$tmp/dlrm.html" && grep -q "\$ per M inferences" "$tmp/dlrm.html" && grep -q "embedding tables" "$tmp/dlrm.html" && ! strip_svg "$tmp/dlrm.html" | grep -q "TTFT\|TPOT\|per token\|tokens\|tp/pp/dp"'
	strip_svg "$tmp/dlrm.html" >"$tmp/dlrm-page.html"
	if [ "${UPDATE:-0}" = 1 ]; then
		cp "$tmp/dlrm-page.html" "$golden/dlrm-criteo.html"
	fi
	check "the per-sample page matches $golden/dlrm-criteo.html" \
		'diff -u "$golden/dlrm-criteo.html" "$tmp/dlrm-page.html" >"$tmp/diff" || { head -20 "$tmp/diff"; false; }'

	# hostile names: a device and a workload name that try to open
	# elements stay text
	head -n 1 tests/cli/data/cat-ok.csv >"$tmp/cat.csv"
	row=$(sed -n 2p tests/cli/data/cat-ok.csv | cut -d, -f2-)
	echo "<script>x</script>,$row" >>"$tmp/cat.csv"
	sed "s|^name = .*|name = <img src=x onerror=alert(1)>\"'\\&|" examples/llama3-8b.ini >"$tmp/evil.ini"
	"$bin" report "$tmp/evil.ini" --catalog "$tmp/cat.csv" --gpu "<script>x</script>" \
		-o "$tmp/evil.html" 2>"$tmp/err"
	rc=$?
	check "hostile names: the page is written (status $rc)" '[ $rc -le 1 ] && [ -s "$tmp/evil.html" ]'
	check "hostile names: escaped, no element opened" \
		'! grep -qi "<script\|<img" "$tmp/evil.html" && grep -q "&lt;script&gt;x&lt;/script&gt;" "$tmp/evil.html" && grep -q "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;" "$tmp/evil.html"'
fi

# gnuplot missing: the page without charts, a note, status 4
PATH=/nonexistent "$bin" report $wl --gpu H100-SXM -o "$tmp/nogp.html" 2>"$tmp/err"
rc=$?
check "gnuplot missing: status 4, a page without charts that says so" \
	'[ $rc -eq 4 ] && [ -s "$tmp/nogp.html" ] && ! grep -q "^<svg" "$tmp/nogp.html" && grep -q "could not be drawn" "$tmp/nogp.html" && grep -q "gnuplot not found" "$tmp/err"'
check "gnuplot missing: no temporary file left" '! ls "$tmp" | grep -q "\.tmp"'

# headless Chromium renders the page: the screenshot is not blank (far
# larger than that of an empty page of the same size)
if [ $have_gnuplot = 1 ] && need chromium chromium; then
	shoot() { # shoot URL PNG
		HOME="$tmp" timeout 120 chromium --headless --no-sandbox \
			--disable-gpu --hide-scrollbars --no-first-run \
			--user-data-dir="$tmp/chromium" --window-size=1200,3000 \
			--screenshot="$2" "$1" >/dev/null 2>&1
	}
	printf '<!DOCTYPE html>\n<html><head><meta charset="utf-8"></head><body></body></html>\n' >"$tmp/blank.html"
	shoot "file://$tmp/blank.html" "$tmp/blank.png"
	shoot "file://$tmp/plan.html" "$tmp/plan.png"
	b=$(size "$tmp/blank.png")
	p=$(size "$tmp/plan.png")
	check "chromium renders the page (screenshot $p bytes, blank $b)" \
		'[ "$(head -c 4 "$tmp/plan.png" | tail -c 3)" = PNG ] && [ $p -gt 50000 ] && [ $p -gt $((20 * b)) ]'
	shoot "file://$tmp/dlrm.html" "$tmp/dlrm.png"
	p=$(size "$tmp/dlrm.png")
	check "chromium renders the per-sample page (screenshot $p bytes)" \
		'[ "$(head -c 4 "$tmp/dlrm.png" | tail -c 3)" = PNG ] && [ $p -gt 50000 ] && [ $p -gt $((20 * b)) ]'
	# REPORT_SHOTS=DIR keeps the screenshots there, to look at them
	if [ -n "${REPORT_SHOTS:-}" ]; then cp "$tmp/plan.png" "$tmp/dlrm.png" "$REPORT_SHOTS/"; fi
fi

echo "report: $pass passed, $fail failed"
[ $fail = 0 ] && [ $pass -gt 0 ]
