#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench-tools`: what one program run of each hot BPF tool costs on this
# host, against one run of the counting program sonde times at start-up, the
# factor the tool table keeps as `run_cost` (core/trace/<tool>.c) for the cost
# model (docs/bpf-tools.md, "Cost").
#
# A workload whose events are known exactly is timed alone and while sonde
# traces it with the tool alone (--max-overhead 0: no model, no guard), the
# fastest of BENCH_REPS each way:
#   syscount, fslatency, futexctn
#                        dd bs=1 count=N: 2N syscalls, each a sys_enter and a
#                        sys_exit run: 4N runs
#   runqlat              a pipe ping-pong of two processes pinned to one CPU,
#                        N round trips: 2N context switches and 2N wakeups
#   offcputime           the same: 2N sched_switch runs
#   softirqs             a UDP socket sending N datagrams to itself on loopback
#                        and reading each back: N NET_RX softirqs, each a
#                        softirq_entry and a softirq_exit run: 2N runs (and
#                        hardirqs, which its check also attaches: no device
#                        interrupt on loopback)
# ns per run = (traced - alone) / runs; the factor is that over the counting
# program's run as sonde calibrated it in the same run (predicted.empty_run_ns).
#   profile              runs 49 times a second a CPU whatever the workload, too
#                        few runs to time a workload by: the kernel's own count
#                        of its run time (kernel.bpf_stats_enabled, set to 1 for
#                        that run and restored) while two processes loop in
#                        dd bs=1 (samples in user and in kernel mode, with their
#                        stacks walked and, where CFI unwinding is on, copied)
# Prints one line per tool with the table's factor beside it; exits 0 (a
# benchmark), non-zero only when it cannot run. Needs root.
#
# Knobs: SONDE, BENCH_REPS (default 3), BENCH_N (dd bytes, datagrams,
# ping-pong round trips / 10, default 400000).

BENCH_NAME=bench-tools
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-3}
N=${BENCH_N:-400000}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF)"
TRACER=
HOGS=()
OLD_STATS=
bench_cleanup() {
	if [ -n "$TRACER" ]; then
		kill -INT "$TRACER" 2>/dev/null
		wait "$TRACER" 2>/dev/null
	fi
	if [ ${#HOGS[@]} -gt 0 ]; then
		kill "${HOGS[@]}" 2>/dev/null
		wait "${HOGS[@]}" 2>/dev/null
	fi
	[ -n "$OLD_STATS" ] && echo "$OLD_STATS" >/proc/sys/kernel/bpf_stats_enabled
	rm -rf "$T"
}
bench_start dd perl jq taskset awk

ns() { date +%s%N; }

# The workloads: each prints nothing, runs a fixed number of events.
w_dd() { dd if=/dev/zero of=/dev/null bs=1 count="$N" 2>/dev/null; }
w_pingpong() {
	taskset -c 1 perl -e 'my $n = shift;
		pipe(my $ar, my $aw); pipe(my $br, my $bw); my $b;
		if (my $pid = fork()) { for (1 .. $n) { syswrite($aw, "x"); sysread($br, $b, 1) } waitpid($pid, 0) }
		else { for (1 .. $n) { sysread($ar, $b, 1); syswrite($bw, "y") } exit 0 }' $((N / 10))
}

w_udp() {
	perl -MSocket -e 'my $n = shift;
		socket(my $s, PF_INET, SOCK_DGRAM, 0) or die "socket: $!";
		bind($s, pack_sockaddr_in(0, inet_aton("127.0.0.1"))) or die "bind: $!";
		my ($a, $b) = (getsockname($s));
		for (1 .. $n) { send($s, "x", 0, $a); recv($s, $b, 1, 0) }' "$N"
}

fastest() { # WORKLOAD: the fastest of REPS runs, in ns
	local best= t0 t1 d
	for ((r = 0; r < REPS; r++)); do
		t0=$(ns)
		"$1"
		t1=$(ns)
		d=$((t1 - t0))
		[ -z "$best" ] || [ "$d" -lt "$best" ] && best=$d
	done
	echo "$best"
}

table_factor() { # TOOL: run_cost in core/trace/TOOL.c
	sed -n 's/^[[:space:]]*\.run_cost = \([0-9.]*\),.*/\1/p' "$TOP/core/trace/$1.c"
}

measure() { # TOOL CHECK WORKLOAD RUNS_PER_UNIT UNITS
	local tool=$1 check=$2 wl=$3 per=$4 units=$5 alone traced empty runs
	alone=$(fastest "$wl")
	mkdir -p "$T/$tool"
	"$SONDE" run --window 600 --max-overhead 0 --no-drilldown --check "$check" \
		--out "$T/$tool" --no-progress >/dev/null 2>"$T/$tool.err" &
	TRACER=$!
	if ! wait_links "$TRACER" 1; then
		printf "%-11s not attached: %s\n" "$tool" "$(tail -1 "$T/$tool.err")"
		TRACER=
		return
	fi
	traced=$(fastest "$wl")
	kill -INT "$TRACER"
	wait "$TRACER"
	TRACER=
	# the counting program's run, as calibrated in that run (a budget of 0 skips the
	# model: calibrate in a second, short run)
	"$SONDE" run --window 1 --no-drilldown --check "$check" --out "$T/$tool" --no-progress \
		>/dev/null 2>&1
	empty=$(tar -xJOf "$(ls -t "$T/$tool"/sonde-*.tar.xz | head -1)" "raw/bpf/$tool.json" \
		2>/dev/null | jq -r '.predicted.empty_run_ns // empty')
	runs=$((per * units))
	awk -v t="$tool" -v a="$alone" -v b="$traced" -v r="$runs" -v e="$empty" -v f="$(table_factor "$tool")" 'BEGIN {
		per = (b - a) / r
		if (e == "" || e <= 0) { printf "%-11s %8.1f ns a run (no calibration figure); table %s\n", t, per, f; exit }
		printf "%-11s %8.1f ns a run, counting program %6.1f ns: factor %5.2f   (table: %s)\n", t, per, e, per / e, f }'
}

echo "BPF tools' cost per program run on $(hostname), $(nproc) CPUs, $(uname -r); fastest of $REPS"
measure syscount drilldown.syscall-who w_dd 4 "$N"
measure fslatency drilldown.filesystem-why w_dd 4 "$N"
measure futexctn drilldown.user-mutex-who w_dd 4 "$N"
measure runqlat drilldown.cpu-why w_pingpong 4 $((N / 10))
measure offcputime workload.process-why w_pingpong 2 $((N / 10))
measure softirqs drilldown.interrupt-why w_udp 2 "$N"

# profile: ns a run as the kernel counts it (see above)
STATS=/proc/sys/kernel/bpf_stats_enabled
if [ -w "$STATS" ]; then
	OLD_STATS=$(cat "$STATS")
	echo 1 >"$STATS"
	for _ in 1 2; do
		dd if=/dev/zero of=/dev/null bs=1 count=100G 2>/dev/null &
		HOGS+=($!)
	done
	mkdir -p "$T/profile"
	"$SONDE" run --window 4 --no-drilldown --check drilldown.cpu-who --out "$T/profile" \
		--no-progress >/dev/null 2>"$T/profile.err"
	kill "${HOGS[@]}" 2>/dev/null
	wait "${HOGS[@]}" 2>/dev/null
	HOGS=()
	echo "$OLD_STATS" >"$STATS"
	OLD_STATS=
	tar -xJOf "$(ls -t "$T/profile"/sonde-*.tar.xz 2>/dev/null | head -1)" raw/bpf/profile.json 2>/dev/null |
		jq -r --arg f "$(table_factor profile)" 'if .cost.source == "kernel" and .runs > 0 and (.predicted.empty_run_ns // 0) > 0 then
			"profile     \(.cost.cpu_ns / .runs | round) ns a run (the kernel'"'"'s count, \(.runs) runs), counting program \(.predicted.empty_run_ns * 10 | round / 10) ns: factor \(.cost.cpu_ns / .runs / .predicted.empty_run_ns * 100 | round / 100)   (table: \($f))"
		  else "profile     no kernel count of its run time (cost: \(.cost.source // "none"))" end' ||
		printf "%-11s no figure: %s\n" profile "$(tail -1 "$T/profile.err")"
else
	printf "%-11s not measured: %s is not writable (the kernel's run time is needed)\n" profile "$STATS"
fi
exit 0
