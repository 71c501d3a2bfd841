#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# SIGKILL at random moments (start-up, window, checks, report, archive): the
# host is left as it was (the kernel settings sonde must never touch, modules,
# mounts, tracing state) and the output folder never holds a bundle under its
# final name that is not complete; the next run removes what a killed one left.
. tests/lib/tap.sh

KILLS=${KILLS:-20}
T=$(mktemp -d /tmp/sonde-safety-kill.XXXXXX)
PID=
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$T"; }
trap cleanup EXIT

snapshot() {
	if command -v bpftool >/dev/null; then
		echo "--- bpf"
		bpftool prog show 2>/dev/null | grep -E "^[0-9]+:" | sed "s/ *tag.*//"
		bpftool link show 2>/dev/null | grep -E "^[0-9]+:"
		bpftool map show 2>/dev/null | grep -E "^[0-9]+:" | sed "s/ *flags.*//"
	fi
	for k in kernel/perf_event_paranoid kernel/kptr_restrict kernel/bpf_stats_enabled \
		kernel/sched_schedstats kernel/task_delayacct kernel/dmesg_restrict \
		kernel/nmi_watchdog kernel/perf_event_max_sample_rate; do
		[ -r "/proc/sys/$k" ] && echo "$k=$(cat "/proc/sys/$k")"
	done
	echo "--- modules"
	cut -d' ' -f1 /proc/modules 2>/dev/null | sort
	echo "--- mounts"
	awk '{ print $5, $9 }' /proc/self/mountinfo | grep -v "^$T" | sort
	for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -r "$d/tracing_on" ] || continue
		echo "--- $d"
		cat "$d/tracing_on" "$d/current_tracer" 2>/dev/null
		ls "$d/instances" 2>/dev/null
		cat "$d/kprobe_events" "$d/uprobe_events" 2>/dev/null
	done
}

snapshot >"$T/before"
mkdir "$T/out"
for i in $(seq 1 "$KILLS"); do
	# window 1 s: a run lasts ~1.3 s, so 0..1.6 s covers every phase
	delay=$(awk -v s="$RANDOM" 'BEGIN { srand(s); printf "%.3f", rand() * 1.6 }')
	"$SONDE" run --window 1 --interval 0.25 --out "$T/out" --no-progress >/dev/null 2>&1 &
	PID=$!
	sleep "$delay"
	kill -9 "$PID" 2>/dev/null
	wait "$PID" 2>/dev/null
	PID=
	echo "$delay" >>"$T/delays"
done
diag "killed $KILLS runs at $(sort -n "$T/delays" | head -1)..$(sort -n "$T/delays" | tail -1) s"

sleep 0.2
is "$(pgrep -x sonde | wc -l)" 0 "no sonde process (or check process) outlives a kill"
bad=0
for b in "$T"/out/sonde-*.tar.xz; do
	[ -e "$b" ] || continue
	"$SONDE" verify "$b" >/dev/null 2>&1 || bad=$((bad + 1))
done
is "$bad" 0 "every bundle under a final name is complete (verifies)"
"$SONDE" run --window 1 --out "$T/out" --no-progress >/dev/null 2>&1
is "$?" 0 "a run after the kills completes"
is "$(ls -A "$T/out" | grep -c '^\.')" 0 "and it removed what the killed runs left (staging, temporaries)"
snapshot >"$T/after"
ok "the host is as it was (settings, modules, mounts, tracing)" diff -u "$T/before" "$T/after"
[ "$TAP_FAILED" = 0 ] || diff -u "$T/before" "$T/after" | sed 's/^/# /' | head -20
done_testing
