#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench` (issue 29): what reading the installed packages costs
# (/var/lib/dpkg/status, or rpm -qa), and that a run reads them after its
# window, never inside it. The read is the host.context collector's `after`
# hook (core/collect/hostctx_pkgs.c), timed over 41 calls
# (bench/packages_bench.c); then one `sonde run --window 1`, whose packages
# record must be written after the window's end (raw/sonde.cap's
# end_wall_ns). Target: at most 50 ms a read. Exits 0 (a benchmark),
# non-zero only when it cannot run.
BENCH_NAME=bench-packages
. "$(dirname "$0")/lib.sh"
TARGET_MS=50
bench_cleanup() { rm -rf "$T"; }
bench_start cc pkg-config awk tar xz
cd "$TOP" || die "no tree at $TOP"
OBJS="$(ls core/*/*.c | sed -e 's#^core/#build/#' -e 's#\.c$#.o#') build/embedded.o"
# shellcheck disable=SC2046,SC2086
cc -O2 -std=gnu11 -D_GNU_SOURCE -Icore -Ibuild -o "$T/bench" bench/packages_bench.c $OBJS \
	$(pkg-config --cflags --libs lua5.4 libcmark libarchive libcurl) -lbpf -ldw -lelf -lz -lmd \
	-lpthread -lm || die "building bench/packages_bench.c failed"
mkdir -p "$T/cap" "$T/out"
size=$(stat -c %s /var/lib/dpkg/status 2>/dev/null || echo 0)
"$T/bench" "$T/cap" | awk -F'\t' -v t="$TARGET_MS" -v size="$size" '{
	printf "packages (%s): %d installed, dpkg status %.2f MB, record %.1f KB; a read: median %.2f ms, at most %.2f ms (<= %d) %s\n",
		$1, $2, size / 1e6, $3 / 1e3, $4, $5, t, ($5 <= t ? "PASS" : "FAIL") }'
"$SONDE" run --window 1 --no-bpf --no-perf --no-drilldown --no-progress --check use.cpu-utilization \
	--out "$T/out" >/dev/null 2>&1 || die "sonde run failed"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T/out" raw/sonde.cap raw/host.context.cap ||
	die "no bundle written"
end=$(grep -a '^end_wall_ns: ' "$T/out/raw/sonde.cap" | awk '{ print $2 }')
rec=$(grep -a '^@ .* sonde:packages$\|^! .* sonde:packages$' "$T/out/raw/host.context.cap" | awk '{ print $3 }')
[ -n "$end" ] && [ -n "$rec" ] || die "no window end or no packages record"
awk -v e="$end" -v r="$rec" 'BEGIN {
	printf "the packages record is written %.1f ms after the window ends: %s\n", (r - e) / 1e6,
		(r > e ? "PASS (outside the window)" : "FAIL (inside the window)") }'
echo
