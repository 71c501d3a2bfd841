#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Checks run several at once (core/lua/engine.c, up to one per CPU): the
# results are those of one check at a time, in the catalog's order, and a
# check stopped from outside (a pathological pattern match, out of the Lua
# hook's reach) or one that fails ends in error while the checks running
# beside it finish. SONDE_BENCH_CHECK_JOBS sets how many run at once.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"
command -v timeout >/dev/null || skip_all "timeout (coreutils) is not installed"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FIX=tests/checks/all/idle

# what does not depend on the run: times and the Lua instruction counts (the
# hook counts in steps that the garbage collector's timing shifts)
stable() {
	jq -S 'del(.cost, .generated, .checks[].elapsed_ms, .checks[].cpu_ms, .checks[].mem_peak_bytes,
		.checks[].instructions)' "$1"
}

for jobs in 1 4; do
	SONDE_BENCH_CHECK_JOBS=$jobs timeout -k 2 120 "$SONDE" analyze "$FIX" --json \
		>"$T/jobs$jobs.json" 2>"$T/jobs$jobs.err"
	rc=$?
	ok "the idle fixture analyzes with $jobs check(s) at a time (exit $rc)" [ "$rc" -le 1 ]
done
stable "$T/jobs1.json" >"$T/one.json"
stable "$T/jobs4.json" >"$T/four.json"
ok "four checks at a time give the findings of one at a time" cmp -s "$T/one.json" "$T/four.json" ||
	diff "$T/one.json" "$T/four.json" | head -20 | sed 's/^/# /'
ok "the findings are not empty" [ "$(jq '.checks | length' "$T/jobs4.json")" -gt 10 ]
is "$(jq -r '[.checks[].id] | join(" ")' "$T/jobs4.json")" \
	"$(jq -r '[.checks[].id] | join(" ")' "$T/jobs1.json")" "the results keep the catalog order"

# A stuck check and a failing one among quick ones, four at a time.
D=$T/checks
mkdir -p "$D/use"
check() { tap_check_file "$D" "$1" "$2"; }
check a-stuck '    string.find(string.rep("a", 40), string.rep("a*", 20) .. "b")'
check b-quick '    ctx:metric("quick", 1)'
check c-fails '    error("this check fails on purpose")'
check d-quick '    ctx:metric("quick", 2)'
check e-quick '    ctx:metric("quick", 3)'
s=$(date +%s)
SONDE_BENCH_CHECK_JOBS=4 timeout -k 2 60 "$SONDE" analyze "$FIX" --json --checks "$D" \
	--check use.a-stuck --check use.b-quick --check use.c-fails --check use.d-quick \
	--check use.e-quick >"$T/mixed.json" 2>"$T/mixed.err"
rc=$?
e=$(date +%s)
ok "a run with a stuck check ends (exit $rc, $((e - s)) s)" [ "$rc" -le 1 ]
is "$(jq -r '[.checks[].id] | join(" ")' "$T/mixed.json")" \
	"use.a-stuck use.b-quick use.c-fails use.d-quick use.e-quick" "in the catalog's order"
is "$(jq -r '.checks[] | select(.id == "use.a-stuck") | .status' "$T/mixed.json")" error \
	"the stuck check ends in error"
ok "its error says it was stopped from outside" \
	grep -q "stopped from outside" <<<"$(jq -r '.checks[] | select(.id == "use.a-stuck") | .error' "$T/mixed.json")"
is "$(jq -r '.checks[] | select(.id == "use.c-fails") | .status' "$T/mixed.json")" error \
	"the failing check ends in error"
for c in b d e; do
	is "$(jq -r ".checks[] | select(.id == \"use.$c-quick\") | .status" "$T/mixed.json")" ok \
		"use.$c-quick, beside them, finishes"
done

# One worker at a time: it runs the checks one after the other, each in a
# fresh state (what one leaves in a module's table or its globals, the next
# does not see), and a worker killed for a stuck check is replaced: the
# checks after it still run.
check g-leaves '    local fmt = require("fmt")
    rawset(fmt, "left_behind", 42)
    ctx:metric("left", rawget(fmt, "left_behind") or 0)'
check h-looks '    local fmt = require("fmt")
    ctx:metric("found", rawget(fmt, "left_behind") or 0)'
SONDE_BENCH_CHECK_JOBS=1 timeout -k 2 60 "$SONDE" analyze "$FIX" --json --checks "$D" \
	--check use.g-leaves --check use.h-looks --check use.a-stuck --check use.b-quick \
	--check use.d-quick >"$T/one.json" 2>"$T/one.err"
rc=$?
ok "one worker: the run ends (exit $rc)" [ "$rc" -le 1 ]
is "$(jq -r '.checks[] | select(.id == "use.g-leaves") | .metrics[] | select(.name == "left") | .value' "$T/one.json")" \
	42 "the first check set a field of a module's table"
is "$(jq -r '.checks[] | select(.id == "use.h-looks") | .metrics[] | select(.name == "found") | .value' "$T/one.json")" \
	0 "the next check in the same worker does not see it (a fresh state)"
is "$(jq -r '.checks[] | select(.id == "use.a-stuck") | .status' "$T/one.json")" error \
	"one worker: the stuck check ends in error"
for c in b d; do
	is "$(jq -r ".checks[] | select(.id == \"use.$c-quick\") | .status" "$T/one.json")" ok \
		"one worker: use.$c-quick, after the stuck one, runs in a new worker"
done

# Each check's own CPU time (cpu_ms) is its own: a check that spins for
# about 0.2 s of CPU beside a quick one, two at a time on this host's CPUs.
check f-spins '    local t0, x = os.clock(), 0
    while os.clock() - t0 < 0.2 do x = x + 1 end'
SONDE_BENCH_CHECK_JOBS=2 timeout -k 2 60 "$SONDE" analyze "$FIX" --json --checks "$D" \
	--check use.f-spins --check use.b-quick >"$T/cpu.json" 2>"$T/cpu.err"
spin=$(jq -r '.checks[] | select(.id == "use.f-spins") | .cpu_ms' "$T/cpu.json")
quick=$(jq -r '.checks[] | select(.id == "use.b-quick") | .cpu_ms' "$T/cpu.json")
ok "the spinning check's cpu_ms is its 0.2 s of CPU ($spin ms)" \
	awk -v v="$spin" 'BEGIN { exit !(v >= 150 && v < 1000) }'
ok "the quick one's is not ($quick ms)" awk -v v="$quick" 'BEGIN { exit !(v >= 0 && v < 100) }'
done_testing
