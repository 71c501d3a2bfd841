#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# `make bench`, the scale section (issue 32): what a whole run costs as the host
# grows. `sonde run --window 10 --no-drilldown` with 100, 1,000, 10,000 and
# 30,000 processes alive, and 10,000 processes of 5 threads each (50,000
# threads), each figure for the whole run, from exec to exit with its children
# (GNU time), and per stage (findings.json cost.stages), against issue 32's
# targets at 10,000 processes:
#   whole run's CPU at most 0.6 s beyond what 100 processes cost
#   peak RSS at most 60 MiB
#   the verdict on the terminal within 1 s of the window's end
#   the bundle written within 2 s of it
# and at 100 processes: the whole run at most 0.8 CPU-s. Then the curve: CPU-s
# and RSS against processes, and the cost each step added per process (linear
# growth keeps it flat). The population is bench/spawn_procs.c's (forks in one
# process group, removed as a group); kernel.pid_max is raised for the threads
# and restored. Prints a table and exits 0 either way (a benchmark, not a test).
#
# The two populations the targets compare, 100 and 10,000, run BENCH_REPEAT times
# and show the median run (by CPU) with the range. Knobs: SONDE, BENCH_SCALE
# ("PROCS[xTHREADS] ...", default "100 1000 10000 30000 10000x5"), BENCH_WINDOW
# (default 10), BENCH_REPEAT (default 3).

BENCH_NAME=scale
. "$(dirname "$0")/lib.sh"
WINDOW=${BENCH_WINDOW:-10}
SCALE=${BENCH_SCALE:-"100 1000 10000 30000 10000x5"}
REPEAT=${BENCH_REPEAT:-3}
SPAWN=${SPAWN_PROCS:-$TOP/build/spawn-procs}
PGRP=
PID_MAX_WAS=

bench_cleanup() {
	[ -n "$PGRP" ] && kill -KILL -- "-$PGRP" 2>/dev/null
	[ -n "$PID_MAX_WAS" ] && echo "$PID_MAX_WAS" >/proc/sys/kernel/pid_max
	rm -rf "$T"
}
bench_start jq tar xz awk perl
[ -x /usr/bin/time ] || die "GNU time is needed (/usr/bin/time, package time)"
[ -x "$SPAWN" ] || die "no $SPAWN (make bench builds it)"

alive() { ls -d /proc/[0-9]* 2>/dev/null | wc -l; }

# populate PROCS THREADS: that many processes alive in all (ours in one group, $PGRP)
populate() {
	local want=$1 threads=$2 have n
	have=$(alive)
	n=$((want - have))
	[ "$n" -gt 0 ] || return 0
	need=$(((n * threads + have) * 12 / 10))
	if [ "$need" -gt "$(cat /proc/sys/kernel/pid_max)" ]; then
		[ -n "$PID_MAX_WAS" ] || PID_MAX_WAS=$(cat /proc/sys/kernel/pid_max)
		echo 4194304 >/proc/sys/kernel/pid_max || die "cannot raise kernel.pid_max for $need tasks"
	fi
	setsid "$SPAWN" "$n" "$threads" >"$T/spawn.out" 2>"$T/spawn.err" &
	PGRP=$!
	for _ in $(seq 600); do
		grep -q '^ready' "$T/spawn.out" 2>/dev/null && return 0
		sleep 0.1
	done
	die "spawn-procs did not get $n processes up: $(head -c 200 "$T/spawn.err")"
}

depopulate() {
	[ -n "$PGRP" ] && kill -KILL -- "-$PGRP" 2>/dev/null
	wait "$PGRP" 2>/dev/null
	PGRP=
	# the kernel reaps tens of thousands slowly: the next population counts from the host's own
	for _ in $(seq 300); do
		[ "$(alive)" -le $((BASE_ALIVE + 50)) ] && return 0
		sleep 0.1
	done
}

# one run: R_* figures
measure() {
	local d=$T/run b t0
	rm -rf "$d"
	mkdir -p "$d"
	# every stdout line with the wall time it arrived: when the verdict and the bundle were told
	/usr/bin/time -f '%e %U %S %M' -o "$d/time" "$SONDE" run --window "$WINDOW" --no-drilldown \
		--no-progress --out "$d" 2>"$d/err" |
		perl -MTime::HiRes=time -ne 'printf "%.6f %s", time, $_' >"$d/out"
	read -r R_WALL u s kb <"$d/time"
	R_CPU=$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.2f", u + s }')
	R_RSS=$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')
	b=$(ls "$d"/sonde-*.tar.xz 2>/dev/null | head -1)
	[ -n "$b" ] || { sed 's/^/  sonde: /' "$d/err" >&2; R_CPU=0; return 1; }
	tar -xJOf "$b" findings.json >"$d/findings.json"
	tar -xJOf "$b" raw/sonde.cap >"$d/facts"
	t0=$(awk '/^end_wall_ns: / { printf "%.6f", $2 / 1e9 }' "$d/facts")
	R_VERDICT=$(awk -v t0="$t0" '$2 == "Verdict:" { printf "%.2f", $1 - t0; exit }' "$d/out")
	R_BUNDLE=$(awk -v t0="$t0" '$2 == "Bundle:" { printf "%.2f", $1 - t0; exit }' "$d/out")
	R_STAGES=$(jq -r '[.cost.stages[]? | "\(.stage)=\(.cpu_ms | round)"] | join(" ")' "$d/findings.json")
	R_WINCPU=$(jq -r '.cost.window_cpu_seconds // 0' "$d/findings.json")
	R_PROCS=$(jq -r '[.checks[] | select(.id == "workload.process-who") | .metrics[]? |
		select(.name == "processes") | .value][0] // "?"' "$d/findings.json")
}

BASE_ALIVE=$(alive)
printf "sonde scale benchmark: sonde run --window %s --no-drilldown on %s, %d CPUs, %s\n" \
	"$WINDOW" "$(hostname)" "$(nproc)" "$(uname -r)"
printf "%-14s %7s %8s %8s %8s %9s %8s %8s  %s\n" population procs "CPU s" "window" "RSS MiB" \
	"verdict" "bundle" "wall s" "stages (CPU ms)"
declare -A CPU RSS VER BUN
for pop in $SCALE; do
	procs=${pop%x*}
	threads=1
	[ "$pop" != "$procs" ] && threads=${pop#*x}
	populate "$procs" "$threads"
	# the two populations the targets compare: the median of REPEAT runs (one run's
	# CPU moves by 0.1 s on a VM whose kdamond takes a share of a CPU), its range said
	n=1
	case "$pop" in 100 | 10000) n=$REPEAT ;; esac
	runs=()
	for _ in $(seq "$n"); do
		measure && runs+=("$R_CPU|$R_RSS|$R_VERDICT|$R_BUNDLE|$R_WALL|$R_WINCPU|$R_PROCS|$R_STAGES")
	done
	if [ "${#runs[@]}" -gt 0 ]; then
		mid=$(printf '%s\n' "${runs[@]}" | sort -t'|' -k1,1n | sed -n "$(((${#runs[@]} + 1) / 2))p")
		range=$(printf '%s\n' "${runs[@]}" | cut -d'|' -f1 | sort -n | sed -n '1p;$p' | paste -sd- -)
		IFS='|' read -r R_CPU R_RSS R_VERDICT R_BUNDLE R_WALL R_WINCPU R_PROCS R_STAGES <<<"$mid"
		[ "${#runs[@]}" -gt 1 ] && R_STAGES="$R_STAGES (median of ${#runs[@]}, CPU $range s)"
		CPU[$pop]=$R_CPU
		RSS[$pop]=$R_RSS
		VER[$pop]=$R_VERDICT
		BUN[$pop]=$R_BUNDLE
		printf "%-14s %7s %8s %8.3f %8s %8ss %7ss %8s  %s\n" "$pop" "$R_PROCS" "$R_CPU" \
			"$R_WINCPU" "$R_RSS" "${R_VERDICT:-?}" "${R_BUNDLE:-?}" "$R_WALL" "$R_STAGES"
	else
		printf "%-14s  the run failed\n" "$pop"
	fi
	depopulate
done

echo
echo "issue 32's targets:"
verdict_of() { awk -v a="$1" -v op="$2" -v b="$3" 'BEGIN {
	if (a == "") { print "(not run)"; exit }
	ok = (op == "<=") ? (a + 0 <= b + 0) : (a + 0 >= b + 0); print ok ? "PASS" : "FAIL" }'; }
base=${CPU[100]}
if [ -n "$base" ] && [ -n "${CPU[10000]}" ]; then
	extra=$(awk -v a="${CPU[10000]}" -v b="$base" 'BEGIN { printf "%.2f", a - b }')
	printf "  %-52s %8s s  <= 0.6 s   %s\n" "10,000 processes: CPU beyond 100 processes'" "$extra" \
		"$(verdict_of "$extra" "<=" 0.6)"
fi
printf "  %-52s %8s MiB <= 60     %s\n" "10,000 processes: peak RSS" "${RSS[10000]:-?}" \
	"$(verdict_of "${RSS[10000]}" "<=" 60)"
printf "  %-52s %8s s  <= 1 s     %s\n" "10,000 processes: verdict after the window's end" \
	"${VER[10000]:-?}" "$(verdict_of "${VER[10000]}" "<=" 1)"
printf "  %-52s %8s s  <= 2 s     %s\n" "10,000 processes: bundle after the window's end" \
	"${BUN[10000]:-?}" "$(verdict_of "${BUN[10000]}" "<=" 2)"
printf "  %-52s %8s s  <= 0.8 s   %s\n" "100 processes: whole run's CPU" "${CPU[100]:-?}" \
	"$(verdict_of "${CPU[100]}" "<=" 0.8)"

echo
echo "the curve (whole run's CPU and peak RSS against processes; '#' = 0.1 CPU-s, '=' = 2 MiB):"
prev_p= prev_c=
for pop in $SCALE; do
	[ -n "${CPU[$pop]}" ] || continue
	p=${pop%x*}
	awk -v pop="$pop" -v c="${CPU[$pop]}" -v r="${RSS[$pop]}" 'BEGIN {
		printf "  %-12s %6.2f s ", pop, c; for (i = 0; i < c * 10 && i < 60; i++) printf "#"; printf "\n"
		printf "  %-12s %6.1f M ", "", r; for (i = 0; i < r / 2 && i < 60; i++) printf "="; printf "\n" }'
	if [ -n "$prev_p" ] && [ "$pop" = "$p" ] && [ "$p" -gt "$prev_p" ]; then
		awk -v a="${CPU[$pop]}" -v b="$prev_c" -v n="$p" -v m="$prev_p" 'BEGIN {
			printf "  %-12s %6.1f us of CPU per process added from %d to %d\n", "", (a - b) * 1e6 / (n - m), m, n }'
	fi
	if [ "$pop" = "$p" ]; then
		prev_p=$p prev_c=${CPU[$pop]}
	fi
done
exit 0
