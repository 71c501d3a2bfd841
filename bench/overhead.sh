#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`: what a sonde run costs the workload it watches, as the
# workload's throughput while sonde observes against its throughput alone,
# measured in the same invocation, alternately, and compared by medians:
#
#   redis   redis-server under redis-benchmark (SET and GET, 20 clients, on
#           loopback): commands a second (INFO total_commands_processed).
#           Two redis-benchmark processes, one SETs and one GETs, 10 clients
#           each, side by side: one `-t set,get` alternates the two every
#           couple of seconds, at rates a fifth apart, and an 8 s window then
#           caught a different mix than the 3 s baselines around it.
#           BENCH_PIN=1 puts redis-server on CPU 0 and the clients on CPU 1:
#           where the scheduler places the two sides moves the throughput by
#           up to 10-20% from one second to the next on this VM (pinned: 3-5%),
#           but pinned, every CPU is a bottleneck and whatever sonde runs on
#           one costs the whole pipeline: a harsher host than the issue's,
#           which is the default (unpinned, as a user runs it).
#   dd      dd if=/dev/zero of=/dev/null bs=1 (two syscalls a byte): bytes a
#           second (/proc/PID/io rchar)
#
# Both run without pause; their counters are read when a window starts and ends
# (sonde's staging directory shows it: raw/*.cap appear at the start, what the
# BPF tools and perf counters gathered, raw/bpf/*.json and raw/perf/*.json, just
# after the end), so each figure is the window's alone. Each window is compared
# with the mean of the baselines just before and after it (the host's other
# work drifts), and the medians of those ratios are printed. Beside the
# throughput, the work done per CPU-second of the workload's own processes
# (commands, bytes): what sonde adds to each request or syscall, which the
# host's other work does not move:
#
#   first window   a default `sonde run` (the cost model and the guard at the
#                  default budget); for redis, --set lowers the syscall rate
#                  that warns so its drill-down always runs and is measured too
#   drill-down     the second window of that same run
#   --no-bpf       `sonde run --no-bpf --no-drilldown`: /proc and /sys only
#   whole run      a default `sonde run` as a user types it (no --set: it
#                  drills down only if its first window warns), from just
#                  before its exec to just after its exit: set-up, window,
#                  analysis and the bundle (issue 32)
#
# Targets (issue 12): redis loses at most 1% in the first window and 3% in the
# drill-down; dd is at most 1.05x slower in the first window. Issue 32: redis
# loses at most 2% over the whole run. One line each,
# PASS or FAIL; exits 0 either way (a benchmark, not a test), non-zero only
# when it cannot run. The host's other work moves the figures: the spread of
# the baselines is printed beside them, and when it passes MAX_SPREAD (25%) the
# result says NOISY instead of PASS or FAIL (the workload alone varied more than
# any overhead to be judged; rerun on a quiet host).
#
# Knobs (environment): SONDE (binary), BENCH_REPS (rounds, default 7),
# BENCH_WINDOW (first window, s, default 8; the drill-down is half),
# BENCH_PORT (redis, default 16379), BENCH_ONLY (redis or dd), BENCH_PIN
# (1: the redis processes on their own CPUs, as above; default 0).

BENCH_NAME=bench-overhead
. "$(dirname "$0")/lib.sh"
REPS=${BENCH_REPS:-7}
WINDOW=${BENCH_WINDOW:-8}
PORT=${BENCH_PORT:-16379}
BASE_S=3
MAX_SPREAD=25

REDIS=
LOAD=
LOAD2=
RUN=
bench_cleanup() {
	[ -n "$RUN" ] && kill -INT "$RUN" 2>/dev/null && wait "$RUN" 2>/dev/null
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	[ -n "$LOAD2" ] && kill "$LOAD2" 2>/dev/null && wait "$LOAD2" 2>/dev/null
	if [ -n "$REDIS" ]; then
		kill "$REDIS" 2>/dev/null
		wait "$REDIS" 2>/dev/null
	fi
	rm -rf "$T"
}
bench_start awk sort jq dd

# A sleep that forks nothing: polling at 50 Hz with /bin/sleep would cost the
# workload more than what is measured.
exec {SNOOZE_FD}<> <(:)
snooze() { read -r -t "$1" -u "$SNOOZE_FD"; }

# Wait until a file matching one of the GLOBs exists (up to SECONDS); 0 when one does.
wait_glob() { # SECONDS GLOB...
	local n=$(($1 * 50)) g
	shift
	while ((n-- > 0)); do
		for g in "$@"; do
			compgen -G "$g" >/dev/null && return 0
		done
		kill -0 "$RUN" 2>/dev/null || return 1
		snooze 0.02
	done
	return 1
}

now_ns() { date +%s%N; }

# The workload's counter now: redis commands processed, or dd's bytes read.
counter() {
	if [ "$WL" = redis ]; then
		redis-cli -p "$PORT" info stats 2>/dev/null |
			awk -F: '/^total_commands_processed:/ { sub(/\r/, "", $2); print $2 }'
	else
		awk '/^rchar:/ { print $2 }' "/proc/$LOAD/io" 2>/dev/null
	fi
}

# The CPU ticks the workload's processes used so far (utime + stime, after the comm).
cpu_ticks() {
	local p sum=0 f
	for p in "${WL_PIDS[@]}"; do
		f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
		f=${f##*) }
		set -- $f
		sum=$((sum + ${12} + ${13}))
	done
	echo "$sum"
}

reading() { echo "$(now_ns) $(counter) $(cpu_ticks)"; }

# Throughput between two readings "ns value ticks", and the work per CPU-second.
per_s() {
	awk -v a="$1" -v b="$2" -v hz="$(getconf CLK_TCK)" 'BEGIN { split(a, x, " "); split(b, y, " ");
		if (y[1] <= x[1]) { print "nan nan"; exit }
		printf "%.1f ", (y[2] - x[2]) * 1e9 / (y[1] - x[1])
		if (y[3] > x[3]) printf "%.1f\n", (y[2] - x[2]) * hz / (y[3] - x[3]); else print "nan" }'
}

# The workload alone for BASE_S seconds: "throughput work-per-CPU-s".
baseline() {
	local a b
	a=$(reading)
	snooze "$BASE_S"
	b=$(reading)
	per_s "$a" "$b"
}

# One sonde run (args); sets FIRST and DRILL (throughput in each window, or
# empty), WHOLE (from just before its exec to just after its exit) and keeps
# its findings.json in $T/last.json.
observed() {
	local out=$T/out a b a0
	rm -rf "$out"
	mkdir -p "$out"
	FIRST=
	DRILL=
	a0=$(reading)
	"$SONDE" run --window "$WINDOW" --out "$out" --no-progress --json "$@" \
		>"$T/last.json" 2>"$T/last.err" &
	RUN=$!
	local raw="$out/.sonde-run-*/raw"
	if wait_glob 60 "$raw/*.cap"; then
		a=$(reading)
		if wait_glob $((WINDOW + 30)) "$raw/bpf/*.json" "$raw/perf/*.json"; then
			b=$(reading)
			FIRST=$(per_s "$a" "$b")
		fi
	fi
	if wait_glob 60 "$raw/drilldown/*.cap"; then
		a=$(reading)
		if wait_glob $((WINDOW + 30)) "$raw/drilldown/bpf/*.json" "$raw/drilldown/perf/*.json"; then
			b=$(reading)
			DRILL=$(per_s "$a" "$b")
		fi
	fi
	wait "$RUN"
	RUN=
	WHOLE=$(per_s "$a0" "$(reading)")
}

median() {
	tr ' ' '\n' | grep -v '^$' | grep -v nan | sort -g |
		awk '{ v[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
			else printf "%.4f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# X / mean(A, B): a window's figure against the baselines just before and after it.
paired() {
	awk -v x="$1" -v a="$2" -v b="$3" 'BEGIN {
		if (x == "" || x == "nan" || a == "nan" || b == "nan" || a + b <= 0) print "nan";
		else printf "%.4f", 2 * x / (a + b) }'
}

spread() { # relative spread (max - min) / median of the values
	tr ' ' '\n' | grep -v '^$' | grep -v nan | sort -g |
		awk '{ v[NR] = $1 } END { if (NR < 2) { print "-"; exit }
			m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
			printf "%.0f%%", 100 * (v[NR] - v[1]) / m }'
}

# One line: the median of the paired throughput ratios against its target, and
# the median of the paired work-per-CPU-second ratios (what sonde adds to each
# request or syscall, whatever else the host runs).
line() { # WORKLOAD MODE RATIOS EFFICIENCY_RATIOS TARGET KIND(loss|slowdown) SPREAD
	local r e
	r=$(echo "$3" | median)
	e=$(echo "$4" | median)
	awk -v w="$1" -v m="$2" -v r="$r" -v e="$e" -v t="$5" -v k="$6" -v n="$REPS" -v sp="$7" \
		-v maxsp="$MAX_SPREAD" 'BEGIN {
		if (r == "nan") { printf "%-6s %-13s no figure (the window was not observed in any round)\n", w, m; exit }
		eff = (e == "nan") ? "?" : sprintf("%.2f%%", 100 * (1 - e))
		noisy = (sp != "-" && sp + 0 > maxsp)
		if (k == "loss") {
			v = 100 * (1 - r); res = (t == "") ? "" : noisy ? "NOISY" : (v <= t ? "PASS" : "FAIL")
			printf "%-6s %-13s throughput %6.2f%% lost (target <= %s%%) %-5s  work per CPU-s %s less  [%d rounds, baselines spread %s]\n",
				w, m, v, (t == "" ? "-" : t), res, eff, n, sp
		} else {
			v = 1 / r; res = (t == "") ? "" : noisy ? "NOISY" : (v <= t ? "PASS" : "FAIL")
			printf "%-6s %-13s %6.3fx slower (target <= %sx) %-5s  work per CPU-s %s less  [%d rounds, baselines spread %s]\n",
				w, m, v, (t == "" ? "-" : t), res, eff, n, sp
		}
	}'
}

# What the drill-down's tools did in the last run, for the reader.
tools_note() {
	jq -r '[.drilldown.tools[]? | "\(.name) \(.status)\(if .duty and .duty < 1 then " duty \(.duty * 100 | round)%" else "" end)"] | join(", ")' \
		"$T/last.json" 2>/dev/null
}

bench_workload() { # WL
	WL=$1
	local r b0 b1 b2 b3 set=() first=() firste=() drill=() drille=() nobpf=() nobpfe=() bases=()
	local whole=() wholee=()
	[ "$WL" = redis ] && set=(--set workload.syscall-what.warn_per_cpu=1000)
	snooze 1
	b0=$(baseline)
	for ((r = 1; r <= REPS; r++)); do
		observed "${set[@]}"
		local f=$FIRST d=$DRILL
		b1=$(baseline)
		first+=("$(paired "${f% *}" "${b0% *}" "${b1% *}")")
		firste+=("$(paired "${f#* }" "${b0#* }" "${b1#* }")")
		drill+=("$(paired "${d% *}" "${b0% *}" "${b1% *}")")
		drille+=("$(paired "${d#* }" "${b0#* }" "${b1#* }")")
		echo "  $WL round $r: alone ${b0% *}/s; first window ${f% *}/s; drill-down ${d% *}/s ($(tools_note)); alone ${b1% *}/s; sonde's CPU $(jq -r '.cost.cpu_seconds * 1000 | round / 1000' "$T/last.json" 2>/dev/null) s, $(jq -r '.cost.window_cpu_seconds * 1000 | round / 1000' "$T/last.json" 2>/dev/null) s in the first window" >&2
		observed --no-bpf --no-drilldown
		f=$FIRST
		b2=$(baseline)
		nobpf+=("$(paired "${f% *}" "${b1% *}" "${b2% *}")")
		nobpfe+=("$(paired "${f#* }" "${b1#* }" "${b2#* }")")
		echo "  $WL round $r: --no-bpf ${f% *}/s; alone ${b2% *}/s" >&2
		observed
		f=$WHOLE
		b3=$(baseline)
		whole+=("$(paired "${f% *}" "${b2% *}" "${b3% *}")")
		wholee+=("$(paired "${f#* }" "${b2#* }" "${b3#* }")")
		echo "  $WL round $r: whole run ${f% *}/s ($(jq -r '[.cost.stages[]?.wall_ms] | add / 1000 * 10 | round / 10' "$T/last.json" 2>/dev/null) s to the bundle, $(jq -r '"\(.drilldown.fired // [] | length) drill-down(s)"' "$T/last.json" 2>/dev/null)); alone ${b3% *}/s" >&2
		bases+=("${b0% *}" "${b1% *}" "${b2% *}")
		b0=$b3
	done
	bases+=("${b0% *}")
	SP=$(echo "${bases[*]}" | spread)
	if [ "$WL" = redis ]; then
		line redis "first window" "${first[*]}" "${firste[*]}" 1 loss "$SP"
		line redis "drill-down" "${drill[*]}" "${drille[*]}" 3 loss "$SP"
		line redis "--no-bpf" "${nobpf[*]}" "${nobpfe[*]}" "" loss "$SP"
		line redis "whole run" "${whole[*]}" "${wholee[*]}" 2 loss "$SP"
	else
		line dd "first window" "${first[*]}" "${firste[*]}" 1.05 slowdown "$SP"
		line dd "drill-down" "${drill[*]}" "${drille[*]}" "" slowdown "$SP"
		line dd "--no-bpf" "${nobpf[*]}" "${nobpfe[*]}" "" slowdown "$SP"
		line dd "whole run" "${whole[*]}" "${wholee[*]}" "" slowdown "$SP"
	fi
}

echo "sonde overhead benchmark on $(hostname), $(nproc) CPUs, $(uname -r): $REPS rounds, a $WINDOW s window"
echo "(each round: the workload alone ${BASE_S} s, a run drilling down, alone, a --no-bpf run, alone, a plain run timed whole, alone; medians)"
if [ "${BENCH_ONLY:-redis}" = redis ]; then
	if command -v redis-server >/dev/null && command -v redis-benchmark >/dev/null &&
		command -v redis-cli >/dev/null; then
		mkdir -p "$T/redis"
		SRV=()
		CLI=()
		if [ "${BENCH_PIN:-0}" = 1 ] && [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
			SRV=(taskset -c 0)
			CLI=(taskset -c 1)
		fi
		"${SRV[@]}" redis-server --port "$PORT" --bind 127.0.0.1 --dir "$T/redis" --save '' \
			--appendonly no --logfile "$T/redis/log" --daemonize no &
		REDIS=$!
		for _ in $(seq 100); do
			redis-cli -p "$PORT" ping >/dev/null 2>&1 && break
			snooze 0.05
		done
		redis-cli -p "$PORT" ping >/dev/null 2>&1 || die "redis-server did not start on port $PORT"
		# -n: a test restarts (and reconnects) once in minutes, not every 2 s
		"${CLI[@]}" redis-benchmark -p "$PORT" -t set -c 10 -n 100000000 -l -q >/dev/null 2>&1 &
		LOAD=$!
		"${CLI[@]}" redis-benchmark -p "$PORT" -t get -c 10 -n 100000000 -l -q >/dev/null 2>&1 &
		LOAD2=$!
		WL_PIDS=("$REDIS" "$LOAD" "$LOAD2")
		[ ${#SRV[@]} -gt 0 ] && echo "redis-server on CPU 0, the two redis-benchmark on CPU 1 (BENCH_PIN=1)"
		bench_workload redis
		kill "$LOAD" "$LOAD2" 2>/dev/null
		wait "$LOAD" "$LOAD2" 2>/dev/null
		LOAD=
		LOAD2=
		redis-cli -p "$PORT" shutdown nosave >/dev/null 2>&1
		wait "$REDIS" 2>/dev/null
		REDIS=
	else
		echo "redis  (skipped: redis-server, redis-benchmark or redis-cli is not installed; make deps)"
	fi
fi
if [ "${BENCH_ONLY:-dd}" = dd ]; then
	dd if=/dev/zero of=/dev/null bs=1 count=100G 2>/dev/null &
	LOAD=$!
	WL_PIDS=("$LOAD")
	bench_workload dd
	kill "$LOAD" 2>/dev/null
	wait "$LOAD" 2>/dev/null
	LOAD=
fi
exit 0
