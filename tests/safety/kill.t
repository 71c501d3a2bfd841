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
	# every kernel setting, minus the counters the kernel moves by itself
	echo "--- sysctl"
	sysctl -a 2>/dev/null | grep -Ev '^(fs\.(dentry-state|file-nr|inode-nr|inode-state|aio-nr|quota\.)|kernel\.(ns_last_pid|random\.|pty\.nr)|net\.netfilter\.nf_conntrack_count)' | sort
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

# The host before: once settled. A sleepable BPF program of an earlier run
# (the task iterator's command lines pass) and its maps are freed only after
# an RCU-tasks-trace grace period; taken too early, "before" lists them and
# "after" does not.
snapshot >"$T/before"
for _ in $(seq 1 60); do
	sleep 0.5
	snapshot >"$T/before.2"
	diff -q "$T/before" "$T/before.2" >/dev/null && break
	mv "$T/before.2" "$T/before"
done
mkdir "$T/out" "$T/timing"
# How long a whole run takes here (BPF set-up, window, checks, a drill-down
# window if one fires, report, archive): kills are spread over all of it.
start=$(date +%s.%N)
"$SONDE" run --window 1 --interval 0.25 --out "$T/timing" --no-progress >/dev/null 2>&1
RUN_S=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", (e - s) * 1.1 }')
rm -rf "$T/timing"
diag "a whole run takes about $RUN_S s here (with 10% margin)"
for i in $(seq 1 "$KILLS"); do
	delay=$(awk -v s="$RANDOM" -v r="$RUN_S" 'BEGIN { srand(s); printf "%.3f", rand() * r }')
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
# ours only (other sondes may run on this host): check processes are forks, same command line
is "$(pgrep -f -- "--out $T/out" | wc -l)" 0 "no sonde process (or check process) outlives a kill"
bad=0
for b in "$T"/out/sonde-*.tar.xz; do
	[ -e "$b" ] || continue
	"$SONDE" verify "$b" >/dev/null 2>&1 || bad=$((bad + 1))
done
is "$bad" 0 "every bundle under a final name is complete (verifies)"
"$SONDE" run --window 1 --out "$T/out" --no-progress >/dev/null 2>&1
is "$?" 0 "a run after the kills completes"
is "$(ls -A "$T/out" | grep -c '^\.')" 0 "and it removed what the killed runs left (staging, temporaries)"
# The kernel frees a BPF program after its last fd closes, but a tracing
# (tp_btf) program only after an RCU-tasks grace period, and a sleepable one
# (the task iterator's command lines pass, iter.s) after an RCU-tasks-trace
# grace period too: it can stay listed for a while after sonde is gone. Wait
# for that, up to 30 s (a leak would stay).
for i in $(seq 1 150); do
	snapshot >"$T/after"
	diff -q "$T/before" "$T/after" >/dev/null && break
	sleep 0.2
done
[ "$i" -gt 1 ] && diag "the kernel took $(awk -v i="$i" 'BEGIN { printf "%.1f", (i - 1) * 0.2 }') s to free the last programs"
ok "the host is as it was (settings, modules, mounts, tracing, BPF programs/links/maps)" diff -u "$T/before" "$T/after"
# what differs, on stderr too: prove shows it without -v (CI)
[ "$TAP_FAILED" = 0 ] || diff -u "$T/before" "$T/after" | head -20 | sed 's/^/# /' | tee /dev/stderr
done_testing
