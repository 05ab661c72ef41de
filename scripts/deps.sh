#!/bin/sh
# deps.sh: install the Debian packages capplan needs, only those missing.
# Uses sudo when not root.  Does nothing when all are present.
set -eu
pkgs="make gcc pkg-config libgsl-dev libcsv-dev libinih-dev libcjson-dev libcmocka-dev libglpk-dev gnuplot-nox
	libonnx-dev protobuf-c-compiler libprotobuf-c-dev python3-onnx"
# headless Chromium renders the HTML report in its test (tests/cli/report.sh)
pkgs="$pkgs chromium"
missing=""
for p in $pkgs; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0
echo "capplan: installing:$missing" >&2
if [ "$(id -u)" -eq 0 ]; then
	sudo=""
else
	sudo="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $missing
