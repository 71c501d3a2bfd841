#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost of the BPF profile, against the targets:
#   slowdown of a CPU-bound loop while sonde profiles at 49 Hz   < 1%
#   time to symbolize a 10 s profile of this machine            < 1 s
#
# Overhead: a fixed amount of work (a loop of BENCH_ITERS iterations) is timed
# alone and while `sonde run --check workload.cpu-why` samples every CPU, in
# alternation, BENCH_ROUNDS times each, in this same invocation. Each run's
# figure is the loop's own CPU time (CLOCK_PROCESS_CPUTIME_ID: the sampling
# interrupt and the BPF program run on the loop's CPU and are charged to it),
# which the other loads of a shared machine disturb far less than wall time.
# The slowdown is median(with) / median(alone) - 1; wall times are printed too.
#
# Symbolization: symbolize_ms of raw/bpf/profile.json after a 10 s window.
# Prints the figures with PASS/FAIL and exits 0 (a benchmark, not a test);
# non-zero only when it cannot run. Needs root (BPF).

TOP=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE:-$TOP/sonde}
ROUNDS=${BENCH_ROUNDS:-5}
ITERS=${BENCH_ITERS:-1000000000}

die() {
	echo "bench/profile: $*" >&2
	exit 1
}

[ -x "$SONDE" ] || die "no sonde binary at $SONDE (make sonde)"
for tool in jq tar xz cc awk; do
	command -v "$tool" >/dev/null || die "$tool is not installed (make deps)"
done
[ "$(id -u)" -eq 0 ] || die "needs root (BPF)"

T=$(mktemp -d /tmp/sonde-bench-profile.XXXXXX)
SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$T/loop.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
volatile unsigned long sink;
static double secs(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	unsigned long n = strtoul(argv[1], 0, 10);
	double c0 = secs(CLOCK_PROCESS_CPUTIME_ID), w0 = secs(CLOCK_MONOTONIC);
	for (unsigned long i = 0; i < n; i++)
		sink += i;
	printf("%.6f %.6f\n", secs(CLOCK_PROCESS_CPUTIME_ID) - c0, secs(CLOCK_MONOTONIC) - w0);
	return 0;
}
EOF
cc -O1 -o "$T/loop" "$T/loop.c" || die "cc failed"

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

mkdir "$T/out"
: >"$T/alone"
: >"$T/with"
for r in $(seq "$ROUNDS"); do
	"$T/loop" "$ITERS" >>"$T/alone"
	# sonde attaches before the loop starts and stays until after it ends
	"$SONDE" run --window 8 --check workload.cpu-why --out "$T/out" --no-progress \
		--json >/dev/null 2>"$T/err" &
	SPID=$!
	sleep 1.5
	"$T/loop" "$ITERS" >>"$T/with"
	wait "$SPID"
	SPID=
	rm -f "$T"/out/*
done
a=$(cut -d' ' -f1 "$T/alone" | median)
w=$(cut -d' ' -f1 "$T/with" | median)
aw=$(cut -d' ' -f2 "$T/alone" | median)
ww=$(cut -d' ' -f2 "$T/with" | median)
slow=$(awk -v a="$a" -v w="$w" 'BEGIN { printf "%.2f", (w / a - 1) * 100 }')
sloww=$(awk -v a="$aw" -v w="$ww" 'BEGIN { printf "%.2f", (w / a - 1) * 100 }')

# symbolization of a 10 s profile of this machine
"$SONDE" run --window 10 --check workload.cpu-why --out "$T/out" --no-progress --json \
	>/dev/null 2>"$T/err" || die "sonde run failed: $(tail -1 "$T/err")"
tar -xJf "$T"/out/sonde-*.tar.xz -C "$T" raw/bpf/profile.json || die "no profile in the bundle"
sym=$(jq '.data.symbolize_ms' "$T/raw/bpf/profile.json")
facts=$(jq -r '.data | "\(.total) samples, \(.stacks_total) stacks, \(.frames) frames, \(.processes_total) processes, \(.elf_files) ELF files"' "$T/raw/bpf/profile.json")

pf() { awk -v v="$1" -v t="$2" 'BEGIN { print (v < t) ? "PASS" : "FAIL" }'; }
printf "%-48s %12s %10s %s\n" "measure" "value" "target" "result"
printf "%-48s %11s%% %9s%% %s\n" "loop CPU time slowdown (median of $ROUNDS)" "$slow" "1" "$(pf "$slow" 1)"
printf "%-48s %11s%% %10s %s\n" "loop wall time slowdown (median, shared host)" "$sloww" "-" "info"
printf "%-48s %12s %10s\n" "loop CPU s alone / with profile" "$a / $w" ""
printf "%-48s %10s ms %7s ms %s\n" "symbolize a 10 s profile" "$sym" "1000" "$(pf "$sym" 1000)"
echo "  ($facts)"
