#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: two audits of this host with known changes between them, recorded now
# by tests/cli/diff/record.sh (before: a workload in its fast path and a loop
# disk backed by memory; after: the slow path, 24 processes added, the disk
# backed by the root file system with direct I/O), then sonde diff must name
# each change: the function that got hotter beyond sampling noise, the new
# processes by command, the disk's percentiles beyond their confidence.
# Other work on this host may come and go between the two: only the injected
# changes are asserted (tests/cli/diff.t holds the recorded pairs, quiet ones
# included, to the rest).
. tests/lib/tap.sh

for tool in jq tar xz cc losetup setsid; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root (a loop device, BPF and perf)"
losetup --find >/dev/null 2>&1 || skip_all "no free loop device"

T=$(mktemp -d /tmp/sonde-live-diff.XXXXXX)
REC=
# record.sh runs in a process group of its own; a TERM to it runs its cleanup
# (workload, dd, loop device, backing files), then the group is gone
cleanup() {
	if [ -n "$REC" ]; then
		kill -TERM -- "-$REC" 2>/dev/null
		wait "$REC" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 143' TERM HUP
trap 'exit 130' INT
mkdir -p "$T/cases" "$T/b" "$T/a"

# record.sh cleans up its processes (by process group), loop device and files itself
SONDE=$SONDE setsid tests/cli/diff/record.sh --out "$T/cases" --only "before after" \
	>"$T/record.out" 2>&1 &
REC=$!
wait "$REC"
rc=$?
is "$rc" 0 "record.sh recorded the two audits"
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/record.out"
REC=
for c in before after; do
	"$SONDE" analyze "$T/cases/$c" --out "$T/${c:0:1}" >/dev/null 2>&1
done
B=$(ls "$T"/b/sonde-*.tar.xz 2>/dev/null)
A=$(ls "$T"/a/sonde-*.tar.xz 2>/dev/null)
ok "two bundles" test -f "$B" -a -f "$A"
"$SONDE" diff "$B" "$A" --json >"$T/d.json"
is "$?" 0 "sonde diff: exit 0"

prof=$(jq -r '.code.profiles[] | select(.kind == "on-CPU") | .kind' "$T/d.json")
if [ "$prof" = on-CPU ]; then
	is "$(jq -r '.code.profiles[] | select(.kind == "on-CPU") | .functions[] | select(.function == "sonde_slow_path") | .total.verdict' "$T/d.json")" \
		up "code: the slow path's share up beyond sampling noise"
	fast=$(jq -r '.code.profiles[] | select(.kind == "on-CPU") | .functions[] | select(.function == "sonde_fast_path") | .total.verdict' "$T/d.json")
	is "$fast" down "code: the fast path's down"
	# the other work of a shared host takes samples too: say how many were the test's
	[ "$fast" = down ] || jq -r '.code.profiles[] | select(.kind == "on-CPU") | "\(.total_old) -> \(.total_new) \(.unit)",
			(.functions[:10][] | "\(.function) \(.total | tojson)")' "$T/d.json" | sed 's/^/#   /'
else
	skip "code" "no on-CPU profile in both bundles: $(jq -r .code.why "$T/d.json")"
fi
is "$(jq -r '.processes.changes[] | select(.command == "sondeadded") | "\(.change) \(.new.processes)"' "$T/d.json")" \
	"new 24" "processes: the 24 added, by command"
LOOPDEV=$(jq -r '[.latency.histograms[].name | select(test("^biolatency loop[0-9]+$"))] | first' "$T/d.json")
if [ "$LOOPDEV" != null ]; then
	is "$(jq -r --arg n "$LOOPDEV" '.latency.histograms[] | select(.name == $n) | .percentiles[0].verdict' "$T/d.json")" \
		up "latency: the disk made slower, p50 up beyond its confidence ($LOOPDEV)"
else
	skip "latency" "biolatency did not trace the loop disk in both: $(jq -r .latency.why "$T/d.json")"
fi
done_testing
