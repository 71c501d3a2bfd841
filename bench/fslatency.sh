#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench` (and `make bench-fslatency`): what fslatency costs the
# workloads it watches, each timed alone and while sonde traces it, alternately,
# BENCH_REPS times, in the same invocation; the medians and their ratio (the
# slowdown) are printed, one line each:
#
#   dd bs=1   dd if=/dev/zero of=/dev/null bs=1 count=N: two file syscalls a
#             byte, each one traced whole (class, fd walk to the file and its
#             mount, per-CPU histogram, interval slot): the worst case per
#             event, every call a short one
#   fsync     a loop of 4 KiB writes each followed by fsync, in a temporary
#             directory under /var/tmp: what the tool is for, calls that wait
#             on the disk; the program's cost is lost in their latency
#
# sonde traces with `--check drilldown.filesystem-why --max-overhead 0
# --no-drilldown`: no cost model and no filter, so every process's file
# syscalls are traced (a drill-down filters to the suspects: the others then
# pay a filtered-out run, a few ns). The same run with --no-bpf (sonde's /proc
# sampling alone, which takes CPU and disk from a loaded host too) is the
# second baseline: traced against it is fslatency's own share. Exits 0 with the figures (a benchmark,
# not a test); non-zero only when it cannot run. Knobs (environment): SONDE,
# BENCH_REPS (default 5), BENCH_COUNT (dd count, default 300k), BENCH_FSYNCS
# (default 200).

BENCH_NAME=bench-fslatency
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-5}
COUNT=${BENCH_COUNT:-300k}
FSYNCS=${BENCH_FSYNCS:-200}

[ "$(id -u)" -eq 0 ] || die "needs root (BPF)"
TRACER=
FDIR=
bench_cleanup() {
	if [ -n "$TRACER" ]; then
		kill -INT "$TRACER" 2>/dev/null
		wait "$TRACER" 2>/dev/null
	fi
	[ -n "$FDIR" ] && rm -rf "$FDIR"
	rm -rf "$T"
}
bench_start dd perl awk sort findmnt
"$SONDE" list 2>/dev/null | grep -q '^bpf.fslatency .* yes' || die "fslatency cannot run on this host"
FDIR=$(mktemp -d /var/tmp/sonde-bench-fslatency.XXXXXX) || die "mktemp failed"

secs() { # COMMAND...: its wall time in seconds
	local t0 t1
	t0=$(date +%s%N)
	"$@"
	t1=$(date +%s%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }'
}

w_dd() { dd if=/dev/zero of=/dev/null bs=1 count="$COUNT" 2>/dev/null; }
w_fsync() {
	perl -e 'use IO::Handle; open(my $f, ">", shift) or die "$!"; my $n = shift;
		for (1 .. $n) { print $f "x" x 4096; $f->flush; $f->sync or die "fsync: $!" }' \
		"$FDIR/fsync.dat" "$FSYNCS"
}

# 0 when a file matching the pattern exists, within $1 seconds
wait_file() {
	local i
	for ((i = 0; i < $1 * 20; i++)); do
		compgen -G "$2" >/dev/null && return 0
		sleep 0.05
	done
	return 1
}

traced() { # WORKLOAD [--no-bpf]: its seconds while sonde traces every file syscall (or samples only)
	mkdir -p "$T/out"
	"$SONDE" run --window 300 --out "$T/out" --no-progress --no-drilldown --max-overhead 0 \
		--check drilldown.filesystem-why "${@:2}" >"$T/sonde.out" 2>"$T/sonde.err" &
	TRACER=$!
	if [ "$2" = --no-bpf ]; then
		wait_file 60 "$T/out/.sonde-run-*/raw/*.cap" ||
			die "sonde did not start its window: $(tail -1 "$T/sonde.err")"
	else
		# fslatency's two links and biolatency's (the check reads both)
		wait_links "$TRACER" 3 || die "sonde did not attach: $(tail -1 "$T/sonde.err")"
	fi
	secs "$1"
	kill -INT "$TRACER" 2>/dev/null
	wait "$TRACER" 2>/dev/null
	TRACER=
	rm -rf "$T/out"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

line() { # NAME ALONE NO-BPF TRACED (each a list of seconds)
	local name=$1 a n t
	a=$(printf '%s\n' "$2" | tr ' ' '\n' | median)
	n=$(printf '%s\n' "$3" | tr ' ' '\n' | median)
	t=$(printf '%s\n' "$4" | tr ' ' '\n' | median)
	printf "%-46s %8.3f %8.3f %8.3f %8.2fx %8.2fx\n" "$name" "$a" "$n" "$t" \
		"$(awk -v a="$a" -v b="$t" 'BEGIN { print b / a }')" \
		"$(awk -v a="$n" -v b="$t" 'BEGIN { print b / a }')"
}

dd_a=() dd_n=() dd_t=() fs_a=() fs_n=() fs_t=()
w_dd >/dev/null # warm the page cache and the CPU frequency
for ((i = 1; i <= REPS; i++)); do
	dd_a+=("$(secs w_dd)")
	dd_n+=("$(traced w_dd --no-bpf)")
	dd_t+=("$(traced w_dd)")
	fs_a+=("$(secs w_fsync)")
	fs_n+=("$(traced w_fsync --no-bpf)")
	fs_t+=("$(traced w_fsync)")
	echo "round $i: dd alone ${dd_a[-1]} s, sonde --no-bpf ${dd_n[-1]} s, traced ${dd_t[-1]} s;" \
		"fsync alone ${fs_a[-1]} s, --no-bpf ${fs_n[-1]} s, traced ${fs_t[-1]} s" >&2
done

echo "bench-fslatency: medians of $REPS rounds, alone and traced alternately (sonde run --check drilldown.filesystem-why --max-overhead 0)"
echo "host: $(hostname), $(nproc) CPUs, $(uname -r); fsync on $(findmnt -no FSTYPE -T "$FDIR") ($(stat -c %m "$FDIR"))"
printf "%-46s %8s %8s %8s %9s %9s\n" "workload (median s)" "alone" "no-bpf" "traced" "vs alone" "vs no-bpf"
line "dd if=/dev/zero of=/dev/null bs=1 count=$COUNT" "${dd_a[*]}" "${dd_n[*]}" "${dd_t[*]}"
line "$FSYNCS x (write 4 KiB + fsync)" "${fs_a[*]}" "${fs_n[*]}" "${fs_t[*]}"
exit 0
