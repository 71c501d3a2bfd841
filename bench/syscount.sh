#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench-syscount`: what syscount costs the workload it watches. A
# syscall-bound load, `dd if=/dev/zero of=/dev/null bs=1 count=500k` (one
# million 1-byte reads and writes), is timed alone and while
# `sonde run --check workload.syscall-what` traces every syscall, alternately,
# REPS times; the medians and their ratio (the slowdown) are printed. When
# bpftrace is installed, a minimal bpftrace one-liner on the same tracepoint is
# timed too, as a comparison (it is not a dependency).
#
# For reference on a 2-CPU VM: strace ~580x, perf trace ~30x, bpftrace ~4x,
# bcc syscount ~1.9x; anything hooking every syscall costs at least ~1.3x.
# Exits 0 with the figures (a benchmark, not a test); non-zero only when it
# cannot run. Knobs (environment): SONDE (binary), BENCH_REPS (default 5),
# BENCH_COUNT (dd count, default 500k).

BENCH_NAME=bench-syscount
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-5}
COUNT=${BENCH_COUNT:-500k}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF)"
TRACER=
bench_cleanup() {
	if [ -n "$TRACER" ]; then
		kill "$TRACER" 2>/dev/null
		wait "$TRACER" 2>/dev/null
	fi
	rm -rf "$T"
}
bench_start dd awk sort
"$SONDE" list 2>/dev/null | grep -q '^bpf.syscount .* yes' || die "syscount cannot run on this host"

# Seconds the load takes (wall).
load() {
	local t0 t1
	t0=$(date +%s%N)
	dd if=/dev/zero of=/dev/null bs=1 count="$COUNT" 2>/dev/null
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'
}

# End a tracer with SIGINT (sonde: ends the window and writes its bundle).
stop_tracer() {
	kill -INT "$TRACER" 2>/dev/null
	wait "$TRACER" 2>/dev/null
	TRACER=
}

sonde_traced() {
	mkdir -p "$T/out"
	"$SONDE" run --window 120 --out "$T/out" --no-progress --check drilldown.syscall-who \
		--max-overhead 0 >"$T/sonde.out" 2>"$T/sonde.err" &
	TRACER=$!
	wait_links "$TRACER" 2 || die "sonde did not attach: $(tail -1 "$T/sonde.err")"
	load
	stop_tracer
	rm -rf "$T/out"
}

# bpftrace: the classic tracepoint needs tracefs mounted; where it is not, the
# raw tracepoint (same hook, no tracefs) stands in, and the table says which.
BT_PROG=
bpftrace_start() { # PROGRAM
	bpftrace -e "$1" >"$T/bt.out" 2>&1 &
	TRACER=$!
	wait_links "$TRACER" 1
}
if command -v bpftrace >/dev/null; then
	for p in 'tracepoint:raw_syscalls:sys_enter { @[pid] = count(); }' \
		'rawtracepoint:sys_enter { @[pid] = count(); }'; do
		if bpftrace_start "$p"; then
			BT_PROG=$p
			stop_tracer
			break
		fi
		echo "bench-syscount: bpftrace -e '$p' did not attach: $(grep -v '^~*$' "$T/bt.out" | tail -1)" >&2
		stop_tracer
	done
fi
bpftrace_traced() {
	bpftrace_start "$BT_PROG" || die "bpftrace did not attach: $(tail -1 "$T/bt.out")"
	load
	stop_tracer
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

base=() traced=() bt=()
load >/dev/null # warm the page cache and the CPU frequency
for ((i = 1; i <= REPS; i++)); do
	base+=("$(load)")
	traced+=("$(sonde_traced)")
	[ -n "$BT_PROG" ] && bt+=("$(bpftrace_traced)")
	echo "round $i: alone ${base[-1]} s, sonde ${traced[-1]} s${BT_PROG:+, bpftrace ${bt[-1]} s}" >&2
done

mb=$(printf '%s\n' "${base[@]}" | median)
mt=$(printf '%s\n' "${traced[@]}" | median)
echo "bench-syscount: dd if=/dev/zero of=/dev/null bs=1 count=$COUNT, $REPS rounds, median wall time"
echo "host: $(hostname), $(nproc) CPUs, $(uname -r)"
printf "%-48s %10s %10s\n" "run" "seconds" "slowdown"
printf "%-48s %10.3f %10s\n" "alone" "$mb" "1.00x"
printf "%-48s %10.3f %9.2fx\n" "sonde run --check workload.syscall-what" "$mt" \
	"$(awk -v a="$mt" -v b="$mb" 'BEGIN { print a / b }')"
if [ -n "$BT_PROG" ]; then
	mbt=$(printf '%s\n' "${bt[@]}" | median)
	printf "%-48s %10.3f %9.2fx\n" "bpftrace ${BT_PROG%% *}" "$mbt" \
		"$(awk -v a="$mbt" -v b="$mb" 'BEGIN { print a / b }')"
fi
exit 0
