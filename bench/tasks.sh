# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by bench/run-bench.sh, with its population of processes alive: what
# sampling every process costs, in the same invocation (issue 18, item 15).
#
# 1. The task source, alone: the checks that read every process and load no
#    BPF tool (process-who, cpu-, memory-, task- and fd-utilization), once with
#    the BPF task iterator (the default) and once with --no-bpf (the /proc
#    walk, the baseline); both --no-perf --no-drilldown. The ratio is what the
#    iterator costs against /proc.
# 2. A default run without the drill-down (`sonde run --no-drilldown`),
#    against the targets issue 18 sets at 10,000 processes: the window ends on
#    time (wall at most the window + 0.5 s), at most 0.6 CPU-s, at most
#    60 MiB (figures shown at any BENCH_PROCS; the verdicts at 10,000 or more).
#
# Uses SONDE, WINDOW, T (a scratch directory) and verdict() of run-bench.sh.

TASKS_CHECKS=(--check workload.process-who --check use.cpu-utilization --check use.memory-utilization
	--check use.task-utilization --check use.fd-utilization)

# bench_one NAME ARGS...: one sonde run; sets R_WALL R_CPU R_RSS (MiB) R_CAP R_SRC R_RC, and
# R_ROUNDS (CPU-s of the sampling rounds) R_PERPROC (their us per process per round)
bench_one() {
	local name=$1 d="$T/tasks-$1" b
	shift
	mkdir -p "$d"
	if [ -x /usr/bin/time ] && [ -z "$BENCH_NO_GNU_TIME" ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$d.time" "$SONDE" run --window "$WINDOW" --out "$d" \
			--no-progress "$@" >/dev/null 2>"$d.err"
		R_RC=$?
		read -r R_WALL u s kb <"$d.time"
		R_RSS=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
	else
		TIMEFORMAT='%R %U %S'
		{ time "$SONDE" run --window "$WINDOW" --out "$d" --no-progress "$@" \
			>/dev/null 2>"$d.err"; } 2>"$d.time"
		R_RC=$?
		unset TIMEFORMAT
		read -r R_WALL u s <"$d.time"
		R_RSS=
	fi
	R_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	b=$(ls "$d"/sonde-*.tar.xz 2>/dev/null | head -1)
	R_CAP=$(tar -xJOf "$b" findings.json 2>/dev/null | jq -r '.cost.captured_bytes // 0')
	[ -n "$R_RSS" ] || R_RSS=$(tar -xJOf "$b" findings.json 2>/dev/null |
		jq -r '.cost.peak_rss_bytes / 1048576 * 10 | round / 10')
	tar -xJOf "$b" raw/sonde.cap >"$d.facts" 2>/dev/null
	R_SRC=$(sed -n 's/^tasks_source: //p' "$d.facts" | head -1)
	# the sampling rounds alone (their thread's CPU), and per process per round
	R_ROUNDS=$(awk '/^rounds_cpu_ns: / { printf "%.3f", $2 / 1e9 }' "$d.facts")
	R_PERPROC=$(awk -v n="$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)" '
		/^samples: / { s = $2 } /^rounds_cpu_ns: / { c = $2 }
		END { if (s > 0 && n > 0) printf "%.1f", c / 1e3 / s / n }' "$d.facts")
	R_WIN=$(tar -xJOf "$b" findings.json 2>/dev/null | jq -r '.window.seconds // 0')
	[ "$R_RC" = 0 ] || sed "s/^/  $name: /" "$d.err" >&2
}

bench_tasks_section() {
	local iw ic ir icap isrc pw pc pr pcap psrc
	echo
	echo "sampling every process ($(ls -d /proc/[0-9]* 2>/dev/null | wc -l) alive), the checks that read them and no BPF tool:"
	bench_one iter "${TASKS_CHECKS[@]}" --no-perf --no-drilldown
	iw=$R_WALL ic=$R_CPU ir=$R_RSS icap=$R_CAP isrc=$R_SRC iro=$R_ROUNDS ipp=$R_PERPROC
	bench_one proc "${TASKS_CHECKS[@]}" --no-perf --no-drilldown --no-bpf
	pw=$R_WALL pc=$R_CPU pr=$R_RSS pcap=$R_CAP psrc=$R_SRC pro=$R_ROUNDS ppp=$R_PERPROC
	printf "%-40s %14s %14s %8s\n" "figure" "task iterator" "/proc walk" "ratio"
	printf "%-40s %14s %14s %8s\n" "  (tasks_source in the run facts)" "${isrc:-?}" "${psrc:-?}" ""
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
	printf "%-40s %12.2f s %12.2f s %8s\n" "wall time" "$iw" "$pw" "$(ratio "$iw" "$pw")"
	printf "%-40s %12.2f s %12.2f s %8s\n" "CPU time, user + sys" "$ic" "$pc" "$(ratio "$ic" "$pc")"
	printf "%-40s %12.3f s %12.3f s %8s\n" "  of which the sampling rounds" "${iro:-0}" "${pro:-0}" \
		"$(ratio "${iro:-0}" "${pro:-0}")"
	printf "%-40s %11.1f us %11.1f us %8s\n" "  per process per round" "${ipp:-0}" "${ppp:-0}" \
		"$(ratio "${ipp:-0}" "${ppp:-0}")"
	printf "%-40s %10.1f MiB %10.1f MiB %8s\n" "peak RSS" "$ir" "$pr" "$(ratio "$ir" "$pr")"
	printf "%-40s %10.2f MiB %10.2f MiB %8s\n" "captured (raw/, payload bytes)" \
		"$(awk -v b="$icap" 'BEGIN { print b / 1048576 }')" \
		"$(awk -v b="$pcap" 'BEGIN { print b / 1048576 }')" "$(ratio "$icap" "$pcap")"

	echo
	echo "sonde run --window $WINDOW --no-drilldown (default checks), issue 18's targets at 10,000 processes:"
	bench_one scale --no-drilldown
	local alive at10k excess
	alive=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
	at10k=$([ "$PROCS" -ge 10000 ] && echo 1 || echo 0)
	excess=$(awk -v w="$R_WALL" -v r="$WINDOW" 'BEGIN { printf "%.2f", w - r }')
	v() { [ "$at10k" = 1 ] && verdict "$@" || echo "(at 10,000)"; }
	printf "%-40s %14.2f s %12s  %s\n" "wall time beyond the window" "$excess" "<= 0.5 s" \
		"$(v "$excess" "<=" 0.5)"
	printf "%-40s %14.3f s %12s\n" "  the window itself (.window.seconds)" "$R_WIN" ""
	printf "%-40s %14.2f s %12s  %s\n" "CPU time, user + sys" "$R_CPU" "<= 0.6 s" \
		"$(v "$R_CPU" "<=" 0.6)"
	printf "%-40s %14.3f s %12s\n" "  of which the sampling rounds" "${R_ROUNDS:-0}" ""
	printf "%-40s %13.1f us %12s\n" "  per process per round" "${R_PERPROC:-0}" ""
	printf "%-40s %12.1f MiB %12s  %s\n" "peak RSS" "$R_RSS" "<= 60 MiB" "$(v "$R_RSS" "<=" 60)"
	printf "%-40s %16s\n" "tasks_source" "${R_SRC:-?}"
	printf "%-40s %16s\n" "processes alive" "$alive"
}
