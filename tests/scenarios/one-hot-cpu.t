#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: one hot CPU. A single-threaded busy process, scn-hotcpu, pinned to
# one CPU of an otherwise idle multi-CPU host: the bottleneck is that one CPU
# (a single-threaded limit), not the machine's overall CPU, so the first finding
# must be the per-CPU imbalance (use.cpu-utilization-percpu) with scn-hotcpu as
# its culprit. The scenario needs the other CPUs idle: we measure them from
# /proc/stat over the same window and skip, saying how busy they were, when
# something else kept them busy (a shared machine); CI runs alone.
. tests/lib/tap.sh

COMM=scn-hotcpu
OTHERS_MAX=40 # the check's default others_max_pct is 50: keep a margin
for tool in jq taskset; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF"
NCPU=$(nproc)
[ "$NCPU" -ge 2 ] || skip_all "one CPU: no imbalance to create"

T=$(mktemp -d /tmp/sonde-scn-hotcpu.XXXXXX)
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# the load: a copy of bash named scn-hotcpu spinning on the last CPU we may use
HOT=$(taskset -c -p $$ | sed 's/.*: //' | tr ',' '\n' | sed 's/.*-//' | tail -1)
cp "$(command -v bash)" "$T/$COMM"
taskset -c "$HOT" "$T/$COMM" -c 'while :; do :; done' &
LOAD=$!
diag "$COMM (pid $LOAD) pinned to cpu$HOT of $NCPU"
sleep 1

# busy and total jiffies of every CPU but HOT
others() {
	awk -v hot="cpu$HOT" '$1 ~ /^cpu[0-9]+$/ && $1 != hot {
		for (i = 2; i <= NF; i++) t += $i; busy += $2 + $3 + $4 + $7 + $8 + $9 }
		END { print busy, t }' /proc/stat
}
read -r b0 t0 < <(others)
mkdir -p "$T/out"
"$SONDE" run --window 5 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
read -r b1 t1 < <(others)
others_pct=$(awk -v b=$((b1 - b0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", (t > 0 ? 100 * b / t : 100) }')
diag "the other CPUs were $others_pct% busy during the run"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-")\(if .explained_by then " (explained by \(.explained_by.check))" else "" end)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'
if [ "$rc" -eq 0 ] && [ "$others_pct" -ge "$OTHERS_MAX" ]; then
	skip_all "not an otherwise idle host: the CPUs other than cpu$HOT were $others_pct% busy (other loads)"
fi

is "$rc" 0 "sonde run --window 5 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
is "$(jq -r '.findings[0].check' "$T/findings.json")" use.cpu-utilization-percpu \
	"the first finding is the per-CPU imbalance (use.cpu-utilization-percpu)"
is "$(jq -r '.findings[0] | "\(.resource).\(.metric)"' "$T/findings.json")" cpu.utilization \
	"its resource and metric: cpu.utilization"
is "$(jq -r '.findings[0].culprits[0].comm' "$T/findings.json")" "$COMM" "its culprit is $COMM"
is "$(jq -r '.checks[] | select(.id == "use.cpu-utilization-percpu") | .metrics[]
	| select(.name == "hottest_cpu_pct") | .instance' "$T/findings.json")" "cpu$HOT" \
	"the hot CPU is cpu$HOT, where $COMM is pinned"

done_testing
