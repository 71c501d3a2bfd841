#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: what loading the first window's BPF tools costs sonde (the
# "setup" stage of findings.json cost.stages: wall and CPU), with the heap
# kept for libbpf's kernel-BTF buffers while the tools load (the default,
# core/trace/trace.c heap_keep) against glibc's defaults
# (SONDE_BENCH_HEAP_DEFAULT=1, the baseline), alternating, in the same
# invocation. Medians of BENCH_REPS (default 5) runs of
# `sonde run --window 1 --no-drilldown`. Exits 0 either way (a benchmark).

BENCH_NAME=setup
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-5}
bench_cleanup() { rm -rf "$T"; }
bench_start jq tar xz awk

# one run; prints "wall_ms cpu_ms peak_rss_mib tools"
one() {
	local d b
	d=$(mktemp -d "$T/run.XXXXXX")
	env "$@" "$SONDE" run --window 1 --no-drilldown --out "$d" --no-progress >/dev/null 2>&1 ||
		return 1
	b=$(ls "$d"/sonde-*.tar.xz | head -1)
	tar -xJOf "$b" findings.json | jq -r '[(.cost.stages[] | select(.stage == "setup") |
		.wall_ms, .cpu_ms), (.cost.peak_rss_bytes / 1048576),
		([.tools[] | select(.status == "ok")] | length)] | @tsv'
	rm -rf "$d"
}
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print 0 }'; }

for ((i = 0; i < REPS; i++)); do
	one SONDE_BENCH_HEAP_DEFAULT=1 >>"$T/base" || die "sonde run failed (baseline)"
	one SONDE_BENCH_NONE=1 >>"$T/kept" || die "sonde run failed"
done
bw=$(cut -f1 "$T/base" | median) bc=$(cut -f2 "$T/base" | median) br=$(cut -f3 "$T/base" | median)
kw=$(cut -f1 "$T/kept" | median) kc=$(cut -f2 "$T/kept" | median) kr=$(cut -f3 "$T/kept" | median)
tools=$(cut -f4 "$T/kept" | median)
echo "loading the first window's BPF tools ($tools attached), median of $REPS, on $(nproc) CPUs:"
printf "%-34s %12s %12s %8s\n" "figure" "glibc heap" "heap kept" "ratio"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
printf "%-34s %9.0f ms %9.0f ms %8s\n" "setup, wall" "$bw" "$kw" "$(ratio "$kw" "$bw")"
printf "%-34s %9.0f ms %9.0f ms %8s\n" "setup, CPU" "$bc" "$kc" "$(ratio "$kc" "$bc")"
printf "%-34s %8.1f MiB %8.1f MiB %8s\n" "peak RSS, whole run" "$br" "$kr" "$(ratio "$kr" "$br")"
