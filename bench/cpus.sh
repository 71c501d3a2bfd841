#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench-cpus`: what many CPUs cost sonde, on paper where this 2-CPU VM
# cannot show it (issue 32, docs/scale.md "Many CPUs"). Each figure says how
# it was had:
#   measured  on this host (CPU time of reads and parses, analysis runs)
#   computed  from sizes: the BPF objects' maps (value size x CPUs), the /proc
#             files as tests/checks/mkcpus writes them in the kernel's formats,
#             times a cost per byte measured here
# Prints tables and exits 0; non-zero only when it cannot run at all.
#
# Knobs (environment): SONDE, CPUS (default "192 1024"), LINES (device
# interrupt lines of the modelled host, default 64), WINDOW and INTERVAL (the
# run's, default 10 and 1: /proc/stat is read every round, the others twice).

BENCH_NAME=cpus
. "$(dirname "$0")/lib.sh"
CPUS=${CPUS:-192 1024}
LINES=${LINES:-64}
WINDOW=${WINDOW:-10}
INTERVAL=${INTERVAL:-1}
B=$TOP/build/cpus-bench
bench_cleanup() { rm -rf "$T"; }
bench_start jq perl awk tar xz
[ -x "$B" ] || die "no $B (make build/cpus-bench)"
ROUNDS=$(awk -v w="$WINDOW" -v i="$INTERVAL" 'BEGIN { printf "%d", w / i + 1 }')

echo "== per-CPU BPF maps (computed: value size rounded to 8 x CPUs, from build/bpf/*.bpf.o)"
echo "   a lookup copies every possible CPU's value; the kernel preallocates entries x that"
# reads of each map in one collect (code of core/trace/<tool>.c), and the guard's:
# sonde_stats is read ten times a second while the tool runs, twice at its collect
reads_of() {
	case "$1.$2" in
	*.sonde_stats) echo $((10 * WINDOW + 2)) ;;
	runqlat.hist | offcputime.hist) echo 51 ;;     # a 10 s window: 200 ms intervals
	fslatency.intervals) echo $((51 * 27)) ;;      # intervals x log2 slots
	fslatency.stats) echo 4096 ;;                  # a walk: at most its keys
	hardirqs.irqs) echo $((1024 + 50)) ;;          # a walk, then the top 50 again
	softirqs.vecs) echo 16 ;;
	syscount.by_id) echo 1025 ;;                   # every syscall number
	syscount.by_proc) echo 10240 ;;                # a walk: at most its keys
	profile.subsec) echo $((10 * 20)) ;;           # a column a second x 20 rows
	profile.pstats) echo 7 ;;
	profile.cfistats | klockstat.counters) echo 4 ;;
	execsnoop.totals) echo 6 ;;
	offcputime.ostats) echo 9 ;;
	tcpretrans.totals) echo 3 ;;
	*.starts | *.scratch | tasks.cmdline_buf | tasks.wait_buf) echo 0 ;; # the programs' own scratch
	*) echo 1 ;;
	esac
}
for n in $CPUS; do
	"$B" maps "$n" "$TOP"/build/bpf/*.bpf.o >"$T/maps.$n" || die "cpus-bench maps failed"
done
first=${CPUS%% *}
printf '%-11s %-12s %-13s %6s %6s' tool map type value max
for n in $CPUS; do printf ' %12s %11s' "lookup@$n" "kernel@$n"; done
printf ' %6s %12s\n' reads "window@$first"
while read -r tool map type value max look kern; do
	r=$(reads_of "$tool" "$map")
	printf '%-11s %-12s %-13s %6s %6s' "$tool" "$map" "$type" "$value" "$max"
	for n in $CPUS; do
		set -- $(awk -v t="$tool" -v m="$map" '$1 == t && $2 == m { print $6, $7 }' "$T/maps.$n")
		printf ' %10.1fKB %9.2fMB' "$(awk -v b="$1" 'BEGIN { print b / 1024 }')" \
			"$(awk -v b="$2" 'BEGIN { print b / 1048576 }')"
	done
	printf ' %6s %10.2fMB\n' "$r" "$(awk -v r="$r" -v b="$look" 'BEGIN { print r * b / 1048576 }')"
done <"$T/maps.$first"
echo "-- per tool: the kernel memory of its per-CPU maps"
for n in $CPUS; do
	awk -v n="$n" '{ k[$1] += $7 } END { for (t in k) printf "%s %d %.1f\n", t, n, k[t] / 1048576 }' \
		"$T/maps.$n"
done | sort -k1,1 -k2,2n | awk '{ m[$1] = m[$1] sprintf("  %s MiB at %s CPUs", $3, $2) } END { for (t in m) print t ":" m[t] }' | sort

echo
echo "== the profile's stack-copy ring (computed: trace_profile__ring_bytes, 49 Hz)"
for n in 2 $CPUS; do
	r=$("$B" ring "$n" 49)
	echo "   $n CPUs: ring $((r / 1048576)) MiB ($r bytes), up to $((2 * r / 1048576)) MiB of sonde's RSS (mapped twice)," \
		"one perf_event and one BPF link a CPU ($n fds), no perf buffer"
done

echo
echo "== /proc files (sizes computed: tests/checks/mkcpus --files N $LINES, the kernel's formats;"
echo "   per-byte costs measured here on this host's own files, $(nproc) CPUs)"
for f in stat interrupts softirqs schedstat; do
	[ -r "/proc/$f" ] && echo "$f $("$B" read "/proc/$f" 5000)" >>"$T/kernel"
done
for f in stat interrupts softirqs schedstat; do
	grep -q "^$f " "$T/kernel" && continue
	# no such file here (/proc/schedstat needs CONFIG_SCHEDSTATS): /proc/stat's cost a byte
	awk -v f="$f" '$1 == "stat" { print f, "-", "-", $4, "(as /proc/stat)" }' "$T/kernel" >>"$T/kernel"
done
while read -r f bytes us nsb note; do
	echo "   kernel, this host: /proc/$f $bytes bytes, $us us CPU a read, $nsb ns a byte $note"
done <"$T/kernel"
tests_mkcpus=$TOP/tests/checks/mkcpus
for n in $CPUS; do
	"$tests_mkcpus" --files "$n" "$LINES" "$T/files.$n" || die "mkcpus --files failed"
done
printf '%-11s' file
for n in $CPUS; do printf ' %11s %13s %13s %13s' "bytes@$n" "kernel ms/rd" "window ms" "parse ms/rd"; done
printf '\n'
for f in stat interrupts softirqs schedstat; do
	reads=2
	[ "$f" = stat ] && reads=$ROUNDS
	nsb=$(awk -v f="$f" '$1 == f { print $4 }' "$T/kernel")
	printf '%-11s' "$f"
	for n in $CPUS; do
		bytes=$(wc -c <"$T/files.$n/$f")
		set -- $("$B" parse "$f" "$T/files.$n/$f" 50)
		awk -v b="$bytes" -v nsb="$nsb" -v r="$reads" -v p="$2" 'BEGIN {
			printf " %11d %13.2f %13.2f %13.3f", b, b * nsb / 1e6, r * b * nsb / 1e6, p / 1000 }'
	done
	printf '  (%s reads a window)\n' "$reads"
done
for n in $CPUS; do
	awk -v n="$n" 'NR == 2 { printf "   /proc/interrupts at %d CPUs: %d bytes a line; 1 MiB (the read cap) holds %d lines\n",
		n, length($0) + 1, 1048576 / (length($0) + 1) }' "$T/files.$n/interrupts"
done

echo
echo "== analysis of the crafted cases (measured: sonde analyze --out, this host)"
run_case() { # NAME DIR ARGS...
	local name=$1 dir=$2 out=$T/out.$1
	shift 2
	mkdir -p "$out/x"
	"$SONDE" analyze "$dir" --out "$out" "$@" >"$out/term" 2>/dev/null || { echo "   $name: analyze failed"; return; }
	"$SONDE" analyze "$dir" --json "$@" >"$out/f.json" 2>/dev/null
	tar -xJf "$out"/sonde-*.tar.xz -C "$out/x"
	printf '   %-28s raw %6d KB  cpu %.2f s  peak RSS %5.1f MB  report.md %6d B  report.html %7d B  terminal %d lines\n' \
		"$name" "$(du -sk "$dir/raw" | cut -f1)" "$(jq '.cost.cpu_seconds' "$out/f.json")" \
		"$(jq '.cost.peak_rss_bytes / 1048576' "$out/f.json")" "$(wc -c <"$out/x/report.md")" \
		"$(wc -c <"$out/x/report.html")" "$(wc -l <"$out/term")"
}
G=$TOP/tests/checks
run_case "2 CPUs, one hot (recorded)" "$G/use.cpu-utilization-percpu/one-hot"
run_case "192 CPUs, one hot" "$G/use.cpu-utilization-percpu/192-cpus-one-hot"
run_case "192 CPUs, three crowded" "$G/use.cpu-saturation/192-cpus-few-hot"
run_case "192 CPUs, one NIC queue" "$G/drilldown.interrupt-why/192-cpus-one-nic-queue" \
	--check workload.cpu-what --check drilldown.interrupt-why
mkdir -p "$T/c1024"
sed -n '/^# 1,024 CPUs/,/^EOF2/p' "$TOP/tests/cli/many-cpus.t" | grep -v '^EOF2' >"$T/c1024/case.txt"
if "$tests_mkcpus" "$T/c1024" && "$TOP/tests/checks/mkcap" "$T/c1024/case.txt" "$T/c1024/raw"; then
	run_case "1,024 CPUs (tests/cli/many-cpus.t)" "$T/c1024"
fi
