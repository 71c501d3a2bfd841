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
#    time (its first to last sample at most the window + 0.5 s), sonde's CPU
#    while it ran at most 0.6 s, peak RSS at most 60 MiB (figures shown at any
#    BENCH_PROCS; the verdicts at 10,000 or more). Then the whole run beyond
#    the window, stage by stage (findings.json cost.stages), without a target:
#    loading the BPF tools is a fixed cost per run, budgeted by issue 12; and
#    `sonde analyze` of that bundle with the checks one at a time (the
#    baseline, SONDE_BENCH_CHECK_JOBS=1) against as many at once as CPUs.
#
# Uses SONDE, WINDOW, T (a scratch directory) and verdict() of run-bench.sh.

TASKS_CHECKS=(--check workload.process-who --check use.cpu-utilization --check use.memory-utilization
	--check use.task-utilization --check use.fd-utilization)
# the thread states (proc.threads, issue 26): the same checks and those that read them
THREADS_CHECKS=(--check workload.process-how --check use.user-mutex-waits --check use.kernel-mutex-waits
	--check use.disk-waits --check use.filesystem-waits --check use.network-waits --check use.memory-waits)

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
	# the window's own wall time (its first to its last sample) and sonde's CPU while it ran
	R_WINWALL=$(awk '/^start_mono_ns: / { s = $2 } /^end_mono_ns: / { e = $2 }
		END { if (e > s) printf "%.3f", (e - s) / 1e9; else print 0 }' "$d.facts")
	R_WINCPU=$(tar -xJOf "$b" findings.json 2>/dev/null | jq -r '.cost.window_cpu_seconds // 0')
	R_STAGES=$(tar -xJOf "$b" findings.json 2>/dev/null |
		jq -r '.cost.stages[]? | "\(.stage) \(.wall_ms) \(.cpu_ms)"')
	R_BUNDLE=$b
	R_THREADS_CAP=$(tar -tvJf "$b" raw/proc.threads.cap 2>/dev/null | awk '{ print $3 + 0 }')
	R_SAMPLER=$(awk '/^threads_sampler_cpu_ns: / { printf "%.3f", $2 / 1e9 }' "$d.facts")
	R_ANALYZE=$(tar -xJOf "$b" findings.json 2>/dev/null |
		jq -r '[.cost.stages[]? | select(.stage == "analysis") | .cpu_ms][0] // 0')
	[ "$R_RC" = 0 ] || sed "s/^/  $name: /" "$d.err" >&2
}

# What the thread states add to the sampling of every process: the task iterator's pass
# already walks every thread; proc.threads reads each thread's wait from the same pass,
# writes a line for those that changed, and samples the suspects' threads faster
# (issue 26). Same checks, with and without the thread-state checks, in one invocation.
bench_threads_section() {
	local threads
	threads=$(ls -d /proc/[0-9]*/task/[0-9]* 2>/dev/null | wc -l)
	echo
	echo "the thread states ($threads threads alive), the checks above with and without those that read them:"
	bench_one nothreads "${TASKS_CHECKS[@]}" --no-perf --no-drilldown
	local nc=$R_CPU nro=$R_ROUNDS nr=$R_RSS ncap=$R_CAP nan=$R_ANALYZE nwin=$R_WINCPU
	bench_one threads "${TASKS_CHECKS[@]}" "${THREADS_CHECKS[@]}" --no-perf --no-drilldown
	local tc=$R_CPU tro=$R_ROUNDS tr=$R_RSS tcap=$R_CAP tan=$R_ANALYZE twin=$R_WINCPU
	ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
	printf "%-40s %14s %14s %8s
" "figure" "without" "with" "ratio"
	printf "%-40s %12.2f s %12.2f s %8s
" "CPU time, user + sys, whole run" "$nc" "$tc" "$(ratio "$tc" "$nc")"
	printf "%-40s %12.3f s %12.3f s %8s
" "sonde's CPU while the window ran" "${nwin:-0}" "${twin:-0}" \
		"$(ratio "${twin:-0}" "${nwin:-0}")"
	printf "%-40s %12.3f s %12.3f s %8s
" "  of which the sampling rounds" "${nro:-0}" "${tro:-0}" \
		"$(ratio "${tro:-0}" "${nro:-0}")"
	printf "%-40s %14s %12.3f s
" "  and the sampler of the suspects" "-" "${R_SAMPLER:-0}"
	printf "%-40s %11.2f us
" "  rounds' extra per thread per round" "$(awk -v a="${tro:-0}" \
		-v b="${nro:-0}" -v n="$threads" -v w="$WINDOW" \
		'BEGIN { if (n > 0) printf "%.2f", (a - b) * 1e6 / n / (w + 1); else print 0 }')"
	printf "%-40s %10.0f ms %10.0f ms %8s
" "analysis (CPU)" "${nan:-0}" "${tan:-0}" "$(ratio "${tan:-0}" "${nan:-0}")"
	printf "%-40s %10.1f MiB %10.1f MiB %8s\n" "peak RSS" "$nr" "$tr" "$(ratio "$tr" "$nr")"
	printf "%-40s %10.2f MiB %10.2f MiB %8s\n" "captured (raw/, payload bytes)" \
		"$(awk -v b="$ncap" 'BEGIN { print b / 1048576 }')" \
		"$(awk -v b="$tcap" 'BEGIN { print b / 1048576 }')" "$(ratio "$tcap" "$ncap")"
	printf "%-40s %14s %10.2f MiB\n" "  of which raw/proc.threads.cap" "-" \
		"$(awk -v b="${R_THREADS_CAP:-0}" 'BEGIN { print b / 1048576 }')"
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

	bench_threads_section

	echo
	echo "sonde run --window $WINDOW --no-drilldown (default checks), issue 18's targets at 10,000 processes:"
	bench_one scale --no-drilldown
	local alive at10k excess late w1 wn
	alive=$(ls -d /proc/[0-9]* 2>/dev/null | wc -l)
	at10k=$([ "$PROCS" -ge 10000 ] && echo 1 || echo 0)
	late=$(awk -v w="$R_WINWALL" -v r="$WINDOW" 'BEGIN { printf "%.3f", w - r }')
	excess=$(awk -v w="$R_WALL" -v r="$WINDOW" 'BEGIN { printf "%.2f", w - r }')
	v() { [ "$at10k" = 1 ] && verdict "$@" || echo "(at 10,000)"; }
	printf "%-40s %14.3f s %12s  %s\n" "the window ends late by" "$late" "<= 0.5 s" \
		"$(v "$late" "<=" 0.5)"
	printf "%-40s %14.3f s %12s  %s\n" "sonde's CPU while the window ran" "${R_WINCPU:-0}" \
		"<= 0.6 s" "$(v "${R_WINCPU:-0}" "<=" 0.6)"
	printf "%-40s %14.3f s %12s\n" "  of which the sampling rounds" "${R_ROUNDS:-0}" ""
	printf "%-40s %13.1f us %12s\n" "  per process per round" "${R_PERPROC:-0}" ""
	printf "%-40s %12.1f MiB %12s  %s\n" "peak RSS" "$R_RSS" "<= 60 MiB" "$(v "$R_RSS" "<=" 60)"
	echo "  the whole run, beyond the window (no target; issue 12 budgets the BPF tools):"
	printf "%-40s %14.2f s\n" "  wall time beyond the window" "$excess"
	printf "%-40s %14.2f s\n" "  CPU time, user + sys, whole run" "$R_CPU"
	while read -r st wall cpu; do
		[ -n "$st" ] || continue
		printf "%-40s %12.0f ms wall %8.0f ms CPU\n" "    $st" "$wall" "$cpu"
	done <<<"$R_STAGES"
	# the checks one at a time (the baseline) and as many at once as the host has CPUs
	if [ -n "$R_BUNDLE" ]; then
		w1=$(TIMEFORMAT=%R; { time SONDE_BENCH_CHECK_JOBS=1 "$SONDE" analyze "$R_BUNDLE" \
			--json >/dev/null 2>&1; } 2>&1)
		wn=$(TIMEFORMAT=%R; { time "$SONDE" analyze "$R_BUNDLE" --json >/dev/null 2>&1; } 2>&1)
		printf "%-40s %10.2f s %10.2f s %8s\n" "  sonde analyze: checks 1 / $(nproc) at once" \
			"${w1:-0}" "${wn:-0}" "$(awk -v a="${wn:-0}" -v b="${w1:-0}" \
			'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
	fi
	printf "%-40s %16s\n" "tasks_source" "${R_SRC:-?}"
	printf "%-40s %16s\n" "processes alive" "$alive"
}
