#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench` (issue 13): what the per-interval histograms cost per program
# run, against the whole-window histograms alone, in the same invocation. The
# latency tools keep one log2 histogram per interval of the window in the
# kernel (docs/bpf-tools.md, "Latency over time"); SONDE_INTERVALS=0 makes
# them keep the whole-window one only, as before (runqlat: the same array at
# index 0; biolatency, offcputime and fslatency: their interval map is not
# touched, and the verifier drops that code as the knob is read-only data).
#
# Each tool traces a workload whose events it sees (sonde run --max-overhead
# 0, the tool's check alone), with and without intervals, alternating, and
# its programs' own run time per run is read from the kernel
# (kernel.bpf_stats_enabled, set to 1 for the benchmark and restored): the
# median of BENCH_REPS runs each way. Target: per run, with intervals / without
# <= 1.05 (no more than today's, within the noise of a shared host).
#   runqlat, offcputime  a pipe ping-pong of two processes pinned to one CPU
#   biolatency           4 KiB direct writes to a file of $TMPDIR
#   fslatency            the same writes (every traced syscall: write, open, ...)
# Prints a table with PASS/FAIL; exits 0 (a benchmark), non-zero only when it
# cannot run at all. Needs root.
#
# Knobs: SONDE, BENCH_REPS (default 5), BENCH_WINDOW (seconds, default 3).

BENCH_NAME=bench-intervals
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-5}
WINDOW=${BENCH_WINDOW:-3}
TARGET_RATIO=1.05

[ "$(id -u)" -eq 0 ] || die "needs root (BPF)"
STATS=/proc/sys/kernel/bpf_stats_enabled
[ -w "$STATS" ] || die "$STATS is not writable: the kernel's per-program run time is needed"
OLD_STATS=$(cat "$STATS")
LOAD=
bench_cleanup() {
	if [ -n "$LOAD" ]; then
		pkill -P "$LOAD" 2>/dev/null
		kill "$LOAD" 2>/dev/null
		wait "$LOAD" 2>/dev/null
	fi
	echo "$OLD_STATS" >"$STATS"
	rm -rf "$T"
}
bench_start perl jq tar xz taskset dd awk
echo 1 >"$STATS"

w_pingpong() { # forever, until killed
	exec taskset -c 0 perl -e 'pipe(my $ar, my $aw); pipe(my $br, my $bw); my $b;
		if (my $pid = fork()) { while (1) { syswrite($aw, "x"); sysread($br, $b, 1) } }
		else { while (1) { sysread($ar, $b, 1); syswrite($bw, "y") } }'
}
w_directio() {
	while :; do
		dd if=/dev/zero of="$T/io" bs=4k count=2000 oflag=direct conv=notrunc 2>/dev/null
	done
}

# one traced window: ns per program run (kernel's count), or nothing
one() { # TOOL CHECK INTERVALS(1|0)
	local tool=$1 check=$2 on=$3 out=$T/run.$$ b
	rm -rf "$out" && mkdir -p "$out"
	SONDE_INTERVALS=$([ "$on" = 1 ] && echo 1 || echo 0) "$SONDE" run --window "$WINDOW" \
		--max-overhead 0 --no-drilldown --check "$check" --out "$out" --no-progress \
		>/dev/null 2>&1
	b=$(ls "$out"/sonde-*.tar.xz 2>/dev/null | head -1)
	[ -n "$b" ] || return
	tar -xJOf "$b" "raw/bpf/$tool.json" 2>/dev/null | jq -r --arg on "$on" '
		select(.cost.source == "kernel" and .runs > 0)
		| select(($on == "1") == (.data | tostring | contains("\"intervals\"")))
		| .cost.cpu_ns / .runs'
}

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

measure() { # TOOL CHECK WORKLOAD
	local tool=$1 check=$2 on=() off=() r x
	"$3" 2>/dev/null &
	LOAD=$!
	sleep 0.5
	for ((r = 0; r < REPS; r++)); do
		x=$(one "$tool" "$check" 1) && [ -n "$x" ] && on+=("$x")
		x=$(one "$tool" "$check" 0) && [ -n "$x" ] && off+=("$x")
	done
	pkill -P "$LOAD" 2>/dev/null # the ping-pong's child, by its parent's pid
	kill "$LOAD" 2>/dev/null
	wait "$LOAD" 2>/dev/null
	LOAD=
	if [ "${#on[@]}" -eq 0 ] || [ "${#off[@]}" -eq 0 ]; then
		printf "%-11s no figure (with intervals: %d runs, without: %d)\n" "$tool" \
			"${#on[@]}" "${#off[@]}"
		return
	fi
	awk -v t="$tool" -v a="$(printf '%s\n' "${on[@]}" | median)" \
		-v b="$(printf '%s\n' "${off[@]}" | median)" -v n="${#on[@]}" -v lim="$TARGET_RATIO" 'BEGIN {
		r = a / b
		printf "%-11s %7.1f ns a run with intervals, %7.1f without: ratio %.3f (<= %.2f) %s  [median of %d]\n",
			t, a, b, r, lim, r <= lim ? "PASS" : "FAIL", n }'
}

echo "Per-interval histograms: cost per program run on $(hostname), $(nproc) CPUs, $(uname -r)"
measure runqlat drilldown.cpu-why w_pingpong
measure offcputime workload.process-why w_pingpong
measure biolatency use.disk-saturation w_directio
measure fslatency drilldown.filesystem-why w_directio
exit 0
