#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench` (issue 13): what the heat maps of a 10 s window add to
# report.html and report.md and to their rendering, against the same page
# without them, in the same invocation (bench/heatmap_bench.c): three latency
# maps (runqlat, biolatency, offcputime: 50 intervals of 200 ms) and the
# profile's subsecond map, typical and with every cell counted. Targets: at
# most 60 KB of report.html and 20 ms of rendering for them. Exits 0 (a
# benchmark), non-zero only when it cannot run.
BENCH_NAME=bench-heatmap
. "$(dirname "$0")/lib.sh"
TARGET_KB=60
TARGET_MS=20
bench_cleanup() { rm -rf "$T"; }
bench_start cc pkg-config awk
cd "$TOP" || die "no tree at $TOP"
# Linked like the unit tests: the object of every core source but main.
OBJS="$(ls core/*/*.c | sed -e 's#^core/#build/#' -e 's#\.c$#.o#') build/embedded.o"
# shellcheck disable=SC2046,SC2086
cc -O2 -std=gnu11 -D_GNU_SOURCE -Icore -Ibuild -o "$T/bench" bench/heatmap_bench.c $OBJS \
	$(pkg-config --cflags --libs lua5.4 libcmark libarchive libcurl) -lbpf -ldw -lelf -lz -lmd -lpthread -lm ||
	die "building bench/heatmap_bench.c failed"
echo "Heat maps of a 10 s window: added to the page and to rendering (median of 41)"
"$T/bench" | awk -F'\t' -v kb="$TARGET_KB" -v tms="$TARGET_MS" '{
	printf "%-10s %d maps: report.html +%6.1f KB (<= %d) %s, report.md +%5.1f KB, rendering +%6.2f ms (<= %d) %s\n",
		$1, $2, $3 / 1000, kb, ($3 <= kb * 1000 ? "PASS" : "FAIL"), $4 / 1000, $5, tms,
		($5 <= tms ? "PASS" : "FAIL") }'
