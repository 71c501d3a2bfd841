#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Part of `make bench`: what the collectors of the trends of finite resources
# cost, each against a baseline run in the same invocation, on a host with
# BENCH_PROCS processes alive (default 1000) and BENCH_CONNS open loopback
# connections (default 1000) to a listener whose queue is full (a suspect:
# its accepts are followed and its owner looked for). Every run is
# --no-bpf (but iter- and iter) --no-perf --no-drilldown, with one user check that declares only
# the collector measured, REPS times each, alternating; the medians of sonde's
# CPU time (user + sys) are printed:
#   base            host facts only: the fixed cost of a run
#   proc.pids-      proc.pids without what holders.c adds (SONDE_BENCH_NO_HOLDERS)
#   proc.pids       with it: fd counts every round, suspects' files, cwds
#   iter-, iter     the same two with BPF allowed (not --no-bpf): processes
#                   from the task iterator, where holders.c reads nothing per
#                   process and round (the counts are in the samples)
#   net.sockets     listeners, ephemeral ports, conntrack, accepts, owners
#   net.links       link kinds, qdisc counters
# then what each adds over its baseline, per round, and, as a ratio, what
# holders.c adds to proc.pids. Last, the analysis time of the exhaustion
# checks in a run of all of them. Exits 0 with the figures (a benchmark, not a
# test); non-zero only when it cannot run. Knobs: SONDE, BENCH_PROCS,
# BENCH_CONNS, BENCH_WINDOW (default 10), BENCH_REPS (default 3).

TOP=$(cd "$(dirname "$0")/.." && pwd)
SONDE=${SONDE:-$TOP/sonde}
PROCS=${BENCH_PROCS:-1000}
CONNS=${BENCH_CONNS:-1000}
WINDOW=${BENCH_WINDOW:-10}
REPS=${BENCH_REPS:-3}

die() {
	echo "bench-runout: $*" >&2
	exit 1
}

[ -x "$SONDE" ] || die "no sonde binary at $SONDE (make sonde)"
for tool in jq awk sort python3; do
	command -v "$tool" >/dev/null || die "$tool is not installed (make deps)"
done

T=$(mktemp -d /tmp/sonde-bench-runout.XXXXXX) || die "mktemp failed"
PIDS=()
cleanup() {
	[ "${#PIDS[@]}" -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null && wait "${PIDS[@]}" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the population ----
n=$(ls -d /proc/[0-9]* | wc -l)
for ((i = n; i < PROCS; i++)); do
	sleep 600 &
	PIDS+=($!)
done
cat >"$T/conns.py" <<'PY'
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
kept = []
for _ in range(int(sys.argv[1])):
    c = socket.socket()
    c.setblocking(False)
    try:
        c.connect(s.getsockname())
    except BlockingIOError:
        pass
    kept.append(c)
time.sleep(3600)
PY
python3 "$T/conns.py" "$CONNS" &
PIDS+=($!)
sleep 2

# ---- one user check per collector measured ----
mkdir -p "$T/checks/use"
mkcheck() { # NAME COLLECTOR...
	local name=$1 list="" c
	shift
	for c in "$@"; do list="$list\"$c\", "; done
	cat >"$T/checks/use/cpu-bench$name.lua" <<EOF
--- bench: $name
return { id = "use.cpu-bench$name", title = "bench $name", methodology = "use", resource = "cpu",
  metric = "utilization", tags = {}, collect = { $list}, run = function() end }
EOF
}
mkcheck base
mkcheck pids proc.pids
mkcheck sockets net.sockets
mkcheck links net.links

# run NAME CHECK [ENV...]: one timed run; "user sys" appended to $T/NAME.times
run() {
	local name=$1 check=$2
	shift 2
	mkdir -p "$T/out"
	TIMEFORMAT='%U %S'
	# shellcheck disable=SC2086
	{ time env "$@" "$SONDE" run --window "$WINDOW" --interval 1 --no-progress ${NOBPF---no-bpf} --no-perf \
		--no-drilldown --checks "$T/checks" --check "use.cpu-bench$check" --out "$T/out" \
		>/dev/null 2>"$T/err"; } 2>>"$T/$name.times" || die "sonde run ($name) failed: $(cat "$T/err")"
	unset TIMEFORMAT
	rm -f "$T"/out/*.tar.xz
}
for ((r = 0; r < REPS; r++)); do
	run base base
	run pids- pids SONDE_BENCH_NO_HOLDERS=1
	run pids pids
	NOBPF= run iter- pids SONDE_BENCH_NO_HOLDERS=1
	NOBPF= run iter pids
	run sockets sockets
	run links links
done
median() { # NAME: the median of user + sys in ms
	awk '{ print ($1 + $2) * 1000 }' "$T/$1.times" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
base=$(median base)
pm=$(median pids-)
pp=$(median pids)
im=$(median iter-)
ip=$(median iter)
so=$(median sockets)
li=$(median links)
rounds=$((WINDOW + 1))

echo "sonde bench (trends of finite resources): $(ls -d /proc/[0-9]* | wc -l) processes, $CONNS loopback"
echo "connections to a full listener; --window $WINDOW (${rounds} rounds), median of $REPS runs each, CPU = user + sys"
echo
printf "%-44s %10s %14s %12s\n" "run" "CPU (ms)" "over baseline" "per round"
printf "%-44s %10s %14s %12s\n" "--------------------------------------------" "----------" "--------------" "------------"
row() { printf "%-44s %10.0f %11.0f ms %9.1f ms\n" "$1" "$2" "$(awk -v a="$2" -v b="$3" 'BEGIN { print a - b }')" \
	"$(awk -v a="$2" -v b="$3" -v r="$rounds" 'BEGIN { print (a - b) / r }')"; }
printf "%-44s %10.0f\n" "base (host facts only)" "$base"
row "proc.pids without holders.c (vs base)" "$pm" "$base"
row "proc.pids (vs proc.pids without holders.c)" "$pp" "$pm"
row "task iterator without holders.c (vs base)" "$im" "$base"
row "task iterator (vs it without holders.c)" "$ip" "$im"
row "net.sockets (vs base)" "$so" "$base"
row "net.links (vs base)" "$li" "$base"
echo
echo "holders.c adds $(awk -v a="$pp" -v b="$pm" -v c="$base" 'BEGIN { printf "%.1f%%", 100 * (a - b) / ((b - c) > 0 ? b - c : 1) }') to proc.pids' own CPU time"
echo "holders.c adds $(awk -v a="$ip" -v b="$im" -v c="$base" 'BEGIN { printf "%.1f%%", 100 * (a - b) / ((b - c) > 0 ? b - c : 1) }') to it with the task iterator"

# the checks themselves, over one capture of all they read
"$SONDE" run --window "$WINDOW" --no-progress --no-bpf --no-perf --no-drilldown --json --out "$T/out" \
	--check use.memory-runout --check use.swap-runout --check use.filesystem-runout --check use.fd-runout \
	--check use.task-runout --check use.network-runout --check use.network-listen >"$T/f.json" 2>/dev/null ||
	die "the run of the exhaustion checks failed"
echo
echo "analysis time of the exhaustion checks (one run, each in its own process):"
jq -r '.checks[] | "  \(.id)\t\(.elapsed_ms | . * 10 | round / 10) ms"' "$T/f.json"
exit 0
