#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: a CPU quota throttles a busy process. A v1 cpu cgroup gets
# cpu.cfs_quota_us = 20% of one CPU; a busy loop with a distinctive comm runs
# inside it for the whole window. `sonde run` must name the cgroup resource as
# the top finding (throttled periods near 100% of the periods, CPU use at its
# quota) and the busy loop as the culprit. What else the shared host does
# cannot make our cgroup less throttled, so the assertions hold under load;
# only a host-wide CPU finding caused by others may rank above ours.
. tests/lib/tap.sh

BUSY=sondethrottled
CGROOT=/sys/fs/cgroup/cpu

for tool in jq perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (to make a cpu cgroup)"
[ -w "$CGROOT/cgroup.procs" ] && [ -e "$CGROOT/cpu.cfs_quota_us" ] ||
	skip_all "no writable cgroup v1 cpu controller with CFS bandwidth at $CGROOT"

T=$(mktemp -d /tmp/sonde-scen-throttle.XXXXXX)
CG=$CGROOT/sonde-throttle-$$
BUSYPID=
cleanup() {
	[ -n "$BUSYPID" ] && kill -9 "$BUSYPID" 2>/dev/null
	wait 2>/dev/null
	if [ -d "$CG" ]; then
		while read -r p; do echo "$p" >"$CGROOT/cgroup.procs" 2>/dev/null; done <"$CG/cgroup.procs"
		rmdir "$CG" 2>/dev/null || diag "could not remove $CG"
	fi
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$CG" || skip_all "cannot make $CG"
echo 100000 >"$CG/cpu.cfs_period_us" || skip_all "cannot set cpu.cfs_period_us"
echo 20000 >"$CG/cpu.cfs_quota_us" || skip_all "cannot set cpu.cfs_quota_us"

# The busy loop: a script, so that its comm is the file name.
printf '#!/usr/bin/perl\n1 while 1;\n' >"$T/$BUSY"
chmod +x "$T/$BUSY"
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2"' sh "$CG" "$T/$BUSY" &
BUSYPID=$!
sleep 1
ok "the busy loop runs in $CG" grep -qx "$BUSYPID" "$CG/cgroup.procs"

"$SONDE" run --window 5 --interval 1 --no-progress --json --out "$T" \
	>"$T/findings.json" 2>"$T/stderr"
rc=$?
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"

F=$T/findings.json
jq_true() { jq -e "$@" >/dev/null 2>&1; }
S='.checks[] | select(.id == "use.cgroup-saturation")'
U='.checks[] | select(.id == "use.cgroup-utilization")'
inst="/sonde-throttle-$$"
thr=$(jq -r --arg i "$inst" "$S | .metrics[] | select(.name == \"throttled_pct\" and .instance == \$i) | .value" "$F")
diag "throttled periods: $thr %"
ok "our cgroup was throttled in at least 80% of its periods ($thr)" \
	awk -v v="${thr:-0}" 'BEGIN { exit !(v >= 80) }'
q=$(jq -r --arg i "$inst" "$U | .metrics[] | select(.name == \"cpu_quota_pct\" and .instance == \$i) | .value" "$F")
diag "CPU use against the quota: $q %"
ok "its CPU use is 70..130% of its 0.2-CPU quota ($q)" \
	awk -v v="${q:-0}" 'BEGIN { exit !(v >= 70 && v <= 130) }'
is "$(jq -r "$S | .status" "$F")" crit "use.cgroup-saturation is crit"
# The first finding whose first culprit is our loop must be the cgroup one: on
# this shared host, others' loads may legitimately rank a host-wide CPU
# finding first (its culprits are then theirs, not our throttled loop).
first_res=$(jq -r '.findings[0].resource' "$F")
first_comm=$(jq -r '.findings[0].culprits[0].comm' "$F")
if [ "$first_res" = cgroup ]; then
	is "$first_comm" "$BUSY" "the first finding is about a cgroup and blames the busy loop first"
else
	diag "first finding: $(jq -c '.findings[0] | {check, summary}' "$F") (others' load on this shared host)"
	ok "the first finding is a cgroup one, or a CPU one that blames others first ($first_res, $first_comm)" \
		test "$first_res" = cpu -a "$first_comm" != "$BUSY"
fi
ours=$(jq -c --arg b "$BUSY" '[.findings[] | select(.culprits[0].comm == $b)][0] | {check, resource, pid: .culprits[0].pid}' "$F")
is "$(jq -r .resource <<<"$ours")" cgroup "the top finding that blames the busy loop first is a cgroup one ($(jq -r .check <<<"$ours"))"
is "$(jq -r .pid <<<"$ours")" "$BUSYPID" "by pid"
ok "the saturation finding blames the busy loop" jq_true --arg b "$BUSY" \
	'[.findings[] | select(.check == "use.cgroup-saturation") | .culprits[0].comm] == [$b]' "$F"
done_testing
