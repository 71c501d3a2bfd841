#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: the cost of one default `sonde run` on a host with ~1000
# processes, against the targets:
#   wall time beyond the window   <= 1.5 s
#   peak RSS                       < 40 MiB
# and, in the same invocation, of the /proc and /sys part alone (a baseline run
# with --no-bpf --no-perf --no-drilldown):
#   its CPU time (user + sys)      < 0.5 s
# The difference is what the BPF tools and perf counters cost sonde itself
# (loading and verifying the programs, reading their maps, symbolizing); their
# programs' own run time in the kernel is in the report's appendix.
# Prints a table with PASS/FAIL per target and exits 0 either way (this is a
# benchmark, not a test); exits non-zero only when it cannot run at all.
#
# Knobs (environment): SONDE (binary), BENCH_PROCS (default 1000),
# BENCH_WINDOW (seconds, default 10), BENCH_NO_GNU_TIME=1 (bash's time, and
# sonde's .cost for the peak RSS, even where GNU time is installed).

TOP=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE:-$TOP/sonde}
PROCS=${BENCH_PROCS:-1000}
WINDOW=${BENCH_WINDOW:-10}
TARGET_EXCESS_S=1.5
TARGET_CPU_S=0.5
TARGET_RSS_MIB=40

die() {
	echo "run-bench: $*" >&2
	exit 1
}

[ -x "$SONDE" ] || die "no sonde binary at $SONDE (make sonde)"
for tool in jq tar xz awk; do
	command -v "$tool" >/dev/null || die "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-bench.XXXXXX) || die "mktemp failed"
SLEEPERS=()
cleanup() {
	if [ "${#SLEEPERS[@]}" -gt 0 ]; then
		kill "${SLEEPERS[@]}" 2>/dev/null
		wait "${SLEEPERS[@]}" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

count_procs() {
	local n=0 d
	for d in /proc/[0-9]*; do
		n=$((n + 1))
	done
	echo "$n"
}

# ---- the population: idle sleepers until ~PROCS processes are alive ----
before=$(count_procs)
for round in 1 2 3; do
	alive=$(count_procs)
	[ "$alive" -ge "$PROCS" ] && break
	for ((i = alive; i < PROCS; i++)); do
		sleep 600 &
		SLEEPERS+=($!)
	done
done
alive=$(count_procs)
[ "$alive" -ge $((PROCS * 9 / 10)) ] ||
	die "could only get $alive processes alive (wanted $PROCS; ulimit -u is $(ulimit -u))"

# How busy the host is with other work just before the run: the wall figures
# stretch on a loaded host (sonde waits for a CPU), the CPU figures less so.
host_busy_pct() {
	local a b
	a=$(head -1 /proc/stat)
	sleep 1
	b=$(head -1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN {
		n = split(a, x); split(b, y); t = 0
		for (i = 2; i <= 9 && i <= n; i++) t += y[i] - x[i]
		idle = (y[5] - x[5]) + (y[6] - x[6])
		printf "%.0f", (t > 0 ? 100 * (t - idle) / t : 0) }'
}
busy_before=$(host_busy_pct)

# ---- one measured run ----
mkdir "$T/out"
TIME_V=0
if [ -z "$BENCH_NO_GNU_TIME" ] && [ -x /usr/bin/time ] && /usr/bin/time -v -o /dev/null true 2>/dev/null; then
	TIME_V=1
	/usr/bin/time -v -o "$T/time.txt" "$SONDE" run --window "$WINDOW" --out "$T/out" \
		--no-progress >"$T/stdout" 2>"$T/stderr"
	rc=$?
else
	# No GNU time: bash's own timer for wall and CPU; the peak RSS comes from sonde's .cost.
	TIMEFORMAT='%R %U %S'
	{ time "$SONDE" run --window "$WINDOW" --out "$T/out" --no-progress \
		>"$T/stdout" 2>"$T/stderr"; } 2>"$T/time.txt"
	rc=$?
	unset TIMEFORMAT
fi
# the baseline: the same run without BPF tools, perf counters or drill-down
mkdir "$T/base"
TIMEFORMAT='%R %U %S'
{ time "$SONDE" run --window "$WINDOW" --out "$T/base" --no-progress --no-bpf --no-perf \
	--no-drilldown >/dev/null 2>"$T/base.err"; } 2>"$T/base.time"
base_rc=$?
unset TIMEFORMAT
[ "$base_rc" -eq 0 ] || die "the baseline sonde run --no-bpf exited $base_rc"
read -r base_wall base_user base_sys <"$T/base.time"
base_cpu=$(awk -v u="$base_user" -v s="$base_sys" 'BEGIN { printf "%.2f", u + s }')
alive_after=$(count_procs)
if [ "$rc" -ne 0 ]; then
	sed 's/^/  sonde: /' "$T/stderr" >&2
	die "sonde run exited $rc"
fi
shopt -s nullglob
bundles=("$T"/out/sonde-*.tar.xz)
shopt -u nullglob
[ "${#bundles[@]}" -eq 1 ] || die "expected one bundle in $T/out, found ${#bundles[@]}"
B=${bundles[0]}
tar -xJOf "$B" findings.json >"$T/findings.json" 2>/dev/null || die "cannot read findings.json from $B"

# ---- figures ----
if [ "$TIME_V" -eq 1 ]; then
	wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
		n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$T/time.txt")
	user=$(awk -F': ' '/User time \(seconds\)/ { print $2 }' "$T/time.txt")
	sys=$(awk -F': ' '/System time \(seconds\)/ { print $2 }' "$T/time.txt")
	rss_kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$T/time.txt")
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	rss_mib=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f", k / 1024 }')
	how="/usr/bin/time -v"
else
	# bash's time reports the child's user and sys in full (bundle included); only
	# the peak RSS has to come from sonde's .cost, which misses the bundle's part.
	read -r wall user sys <"$T/time.txt"
	cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
	rss_mib=$(jq -r '.cost.peak_rss_bytes / 1048576 * 10 | round / 10' "$T/findings.json")
	how="bash time (wall, CPU); sonde's .cost (peak RSS: an underestimate, it misses the bundle)"
fi
jqr() { jq -r "$1" "$T/findings.json"; }
win_s=$(jqr '.window.seconds')
samples=$(jqr '.window.samples')
self_cpu=$(jqr '.cost.cpu_seconds * 1000 | round / 1000')
self_user=$(jqr '.cost.user_seconds * 1000 | round / 1000')
self_sys=$(jqr '.cost.system_seconds * 1000 | round / 1000')
self_rss=$(jqr '.cost.peak_rss_bytes / 1048576 * 10 | round / 10')
analysis_ms=$(jqr '.cost.analysis_ms | round')
reads=$(jqr '.cost.reads')
captured=$(jqr '.cost.captured_bytes')
seen=$(jqr '[.checks[] | select(.id == "workload.process-who") | .metrics[]
	| select(.name == "processes") | .value][0] // "?"')
nchecks=$(jqr '.checks | length')
setup_ms=$(jqr '[.tools[]? | .setup_ms // 0] | add // 0')
bpf_ms=$(jqr '[.tools[]? | .cpu_ns // 0] | add // 0 | . / 1e6')
bundle_bytes=$(stat -c %s "$B")
excess=$(awk -v w="$wall" -v r="$WINDOW" 'BEGIN { printf "%.2f", w - r }')
overrun=$(awk -v a="$win_s" -v r="$WINDOW" 'BEGIN { printf "%.3f", a - r }')
after_window=$(awk -v w="$wall" -v a="$win_s" -v m="$analysis_ms" \
	'BEGIN { printf "%.2f", w - a - m / 1000 }')

verdict() { # VALUE OP TARGET
	awk -v v="$1" -v t="$3" -v op="$2" 'BEGIN {
		pass = (op == "<=") ? (v <= t) : (v < t); print (pass ? "PASS" : "FAIL") }'
}
mib() { awk -v b="$1" 'BEGIN { printf "%.2f MiB", b / 1048576 }'; }

echo "sonde benchmark: sonde run --window $WINDOW (default checks) on $(hostname), $(nproc) CPUs, $(uname -r)"
echo "processes alive: $before before, $alive after spawning ${#SLEEPERS[@]} sleepers, $alive_after after the run"
echo "host CPU busy with other work in the second before the run: $busy_before%"
echo "measured with: $how"
echo
printf "%-40s %16s %12s  %s\n" "figure" "measured" "target" "result"
printf "%-40s %16s %12s  %s\n" "----------------------------------------" "----------------" "------------" "------"
printf "%-40s %14.2f s %12s\n" "wall time" "$wall" ""
printf "%-40s %14.2f s %12s  %s\n" "  excess over the $WINDOW s window" "$excess" "<= $TARGET_EXCESS_S s" \
	"$(verdict "$excess" "<=" "$TARGET_EXCESS_S")"
printf "%-40s %14.3f s %12s\n" "    window overrun (sampling late)" "$overrun" ""
printf "%-40s %14.3f s %12s\n" "    analysis (checks)" "$(awk -v m="$analysis_ms" 'BEGIN { print m / 1000 }')" ""
printf "%-40s %14.2f s %12s\n" "    rest (start, reports, bundle)" "$after_window" ""
printf "%-40s %14.2f s %12s\n" "CPU time, user + sys" "$cpu" ""
printf "%-40s %14.2f s %12s  %s\n" "  of which /proc and /sys (--no-bpf run)" "$base_cpu" "< $TARGET_CPU_S s" \
	"$(verdict "$base_cpu" "<" "$TARGET_CPU_S")"
printf "%-40s %14.2f s %12s\n" "  BPF tools and perf counters (the rest)" \
	"$(awk -v a="$cpu" -v b="$base_cpu" 'BEGIN { printf "%.2f", a - b }')" ""
printf "%-40s %12.0f ms %12s\n" "    tools' set-up, summed (.tools)" "$setup_ms" ""
printf "%-40s %12.1f ms %12s\n" "    their programs in the kernel (.tools)" "$bpf_ms" ""
printf "%-40s %14.2f s %12s\n" "  user" "$user" ""
printf "%-40s %14.2f s %12s\n" "  sys" "$sys" ""
printf "%-40s %14.3f s %12s\n" "  as sonde reports it (.cost)" "$self_cpu" ""
printf "%-40s %14s   %12s\n" "    (user / sys)" "$self_user / $self_sys" ""
printf "%-40s %12.1f MiB %12s  %s\n" "peak RSS" "$rss_mib" "< $TARGET_RSS_MIB MiB" \
	"$(verdict "$rss_mib" "<" "$TARGET_RSS_MIB")"
printf "%-40s %12.1f MiB %12s\n" "  as sonde reports it (.cost)" "$self_rss" ""
printf "%-40s %16s\n" "processes seen (workload.process-who)" "$seen"
printf "%-40s %16s\n" "samples in the window" "$samples"
printf "%-40s %16s\n" "checks run" "$nchecks"
printf "%-40s %16s\n" "files read (.cost.reads)" "$reads"
printf "%-40s %16s\n" "captured (raw/, uncompressed)" "$(mib "$captured")"
printf "%-40s %16s\n" "bundle (tar.xz)" "$(mib "$bundle_bytes")"

# The host context (collect/hostctx.c: raw/host.context.cap, read once at the
# start of every run), from the baseline run's own bundle: its reads, bytes,
# and the time from its first read to its last, as a share of that run's wall
# time (the ratio is against the baseline measured in this same invocation).
base_bundle=$(ls "$T"/base/sonde-*.tar.xz 2>/dev/null | head -1)
if [ -n "$base_bundle" ] && tar -xJOf "$base_bundle" raw/host.context.cap >"$T/hostctx.cap" 2>/dev/null; then
	read -r hc_reads hc_bytes hc_ms < <(perl -e '
		local $/; open(my $f, "<", $ARGV[0]) or die; my $s = <$f>; my $p = index($s, "\n") + 1;
		my ($n, $b, $lo, $hi) = (0, 0);
		while ($p < length($s)) {
			my $e = index($s, "\n", $p); last if $e < 0;
			my @h = split(/ /, substr($s, $p, $e - $p), 7); $p = $e + 1;
			$n++; $lo = $h[3] if !defined $lo || $h[3] < $lo; $hi = $h[3] if !defined $hi || $h[3] > $hi;
			if ($h[0] eq "@" || $h[0] eq "=") { $b += $h[4]; $p += $h[4] + 1 if $h[0] eq "@"; }
		}
		printf "%d %d %.2f\n", $n, $b, ($hi - $lo) / 1e6;' "$T/hostctx.cap")
	printf "%-40s %14s\n" "host context (host.context)" "$hc_reads reads"
	printf "%-40s %16s\n" "  captured" "$(mib "$hc_bytes")"
	printf "%-40s %12.2f ms %12s\n" "  first to last read" "$hc_ms" ""
	printf "%-40s %13.3f %% %12s\n" "  of the baseline run's wall time ($base_wall s)" \
		"$(awk -v m="$hc_ms" -v w="$base_wall" 'BEGIN { printf "%.3f", (w > 0 ? m / 10 / w : 0) }')" ""
else
	echo "host context: no raw/host.context.cap in the baseline bundle"
fi
echo
echo "sonde's .cost is measured before the reports are rendered and the bundle is"
echo "compressed; the CPU and wall figures above include both."
exit 0
