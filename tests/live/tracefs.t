#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tracefs variant of the tools that have one (core/trace/ftrace.c:
# killsnoop, oomkill, tcpretrans, execsnoop), where bpf() is refused (a seccomp filter,
# tests/lib/seccomp-deny.c) or the kernel has no BTF: each runs from a
# private tracefs instance, streamed and counted by sonde (this VM's tracefs
# has no hist triggers), and says so (attach "tracefs", its cost with the
# reader thread's CPU). A SIGTERM sent to a sleep during the window is the
# finding of workload.signal-who, as with BPF; five connections refused by a
# closed loopback port are five resets sent and received, per flow; eight
# runs of a program of ours are eight execs of its comm, with its path and
# eight lifetimes; the instances are removed at
# the end of the run; one left by a run killed with kill -9 is removed by the
# next run, and a live run's is left alone. Without tracefs mounted, the
# reason keeps both: bpf() refused, and tracefs not mounted.
#
# tracefs is mounted in the test's own mount namespace (this VM does not
# mount it; sonde never does). Needs root, unshare and a C compiler.
. tests/lib/tap.sh
. tests/lib/net.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root (mount namespaces, tracefs)"
for tool in unshare jq cc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
unshare -m --propagation private sh -c \
	'mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true; test -d /sys/kernel/tracing/instances && test -d /sys/kernel/tracing/events/signal/signal_generate' ||
	skip_all "this kernel has no tracefs with instances and signal events"

T=$(mktemp -d /var/tmp/sonde-tracefs.XXXXXX)
FAKE=""
# the stand-in for a live run's instance, whatever happens
tap_cleanup_extra() {
	[ -n "$FAKE" ] && unshare -m --propagation private sh -c \
		"mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; rmdir /sys/kernel/tracing/instances/$FAKE" 2>/dev/null
}
tap_kill_at_exit
TRACEFS="mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null || true"
cc -O2 -Wall -o "$T/seccomp-deny" tests/lib/seccomp-deny.c 2>"$T/cc.err" ||
	skip_all "tests/lib/seccomp-deny.c does not build: $(head -1 "$T/cc.err")"

# instances: the sonde instances tracefs holds now (tracefs mounted for the look)
instances() {
	unshare -m --propagation private sh -c "$TRACEFS; ls /sys/kernel/tracing/instances" |
		grep '^sonde-' | sort | tr '\n' ' '
}
before=$(instances)

# ---- bpf() refused, tracefs mounted: a SIGTERM to a sleep in the window ----
sleep 60 &
VICTIM=$!
PIDS+=("$VICTIM")
mkdir -p "$T/out"
PORT=$(free_port)
cp /bin/true "$T/sonde-ft-exec"
(sleep 1.5; kill -TERM "$VICTIM"
 for _ in 1 2 3 4 5 6 7 8; do "$T/sonde-ft-exec"; done
 for _ in 1 2 3 4 5; do bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT" 2>/dev/null; done) &
PIDS+=("$!")
unshare -m --propagation private sh -c "$TRACEFS
	exec '$T/seccomp-deny' bpf '$SONDE' run --window 3 --max-overhead 0 --out '$T/out' --json \
		--no-progress" >"$T/f.json" 2>"$T/err"
is "$?" 0 "bpf() refused, tracefs there: sonde run exits 0"
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "a bundle is written" test -f "$B"
for tool in killsnoop oomkill tcpretrans execsnoop; do
	is "$(jq -r --arg t "$tool" '.tools[] | select(.name == $t) | "\(.status) \(.attach)"' "$T/f.json")" \
		"ok tracefs" "$tool ran through tracefs"
done
tar -xJOf "$B" raw/bpf/killsnoop.json >"$T/killsnoop.json" 2>/dev/null
ok "killsnoop says why not BPF (attempts)" \
	grep -q '"attempts":"BPF: bpf() refused: a seccomp filter' "$T/killsnoop.json"
is "$(jq -r '[.data.fatal[] | select(.signal == "SIGTERM" and .target_pid == '"$VICTIM"')] | length' \
	"$T/killsnoop.json")" 1 "the SIGTERM to the sleep (pid $VICTIM) is one of the fatal signals"
is "$(jq -r '.data.fatal[] | select(.target_pid == '"$VICTIM"') | .target_comm' "$T/killsnoop.json")" \
	sleep "... with its target's comm"
ok "the cost counts the reader thread's CPU (measured) and the events' records" \
	sh -c "jq -r .cost.how '$T/killsnoop.json' | grep -q \"ms of sonde's reader thread\""
ok "events were read, none lost" \
	test "$(jq '.runs' "$T/killsnoop.json")" -gt 0 -a "$(jq '.drops' "$T/killsnoop.json")" = 0
ok "workload.signal-who: the fatal signal is a finding" \
	test "$(jq '[.findings[] | select(.check == "workload.signal-who")] | length' "$T/f.json")" = 1
# (the summary names the first fatal signal: other work on this host may send one before)
is "$(jq -r --arg v "$VICTIM" '.checks[] | select(.id == "workload.signal-who") | .evidence[] |
	select(.title | startswith("Fatal signals")) | .rows[] | select(.[1] == "SIGTERM" and .[4] == $v) |
	.[5]' "$T/f.json")" sleep "... whose table of fatal signals shows the SIGTERM to sleep (pid $VICTIM)"
tar -xJOf "$B" raw/bpf/tcpretrans.json >"$T/tcpretrans.json" 2>/dev/null
is "$(jq --argjson p "$PORT" '[.data.flows[] | select(.lport == $p and .raddr == "127.0.0.1") |
	.resets_sent] | add' "$T/tcpretrans.json")" 5 "tcpretrans: the closed port $PORT sent 5 resets"
is "$(jq --argjson p "$PORT" '[.data.flows[] | select(.rport == $p and .laddr == "127.0.0.1") |
	.resets_received] | add' "$T/tcpretrans.json")" 5 "... and the clients received them"
tar -xJOf "$B" raw/bpf/execsnoop.json >"$T/execsnoop.json" 2>/dev/null
is "$(jq -r '.data.comms[] | select(.comm == "sonde-ft-exec") | "\(.execs) \(.exits_new) \(.filename)"' \
	"$T/execsnoop.json")" "8 8 $T/sonde-ft-exec" "execsnoop: 8 execs of sonde-ft-exec, 8 lifetimes, its path"
ok "... its totals hold them, the lifetimes' histogram counts every one that ended" \
	test "$(jq '.data.execs >= 8 and .data.lifetime.count == .data.exits_new and
		(.data.lifetime.hist | add) == .data.exits_new' "$T/execsnoop.json")" = true
ok "... and it says no command line was sampled (the event has none)" \
	test "$(jq '.data.sampling.first == 0 and (.data.samples | length) == 0 and
		.data.not_sampled == .data.execs' "$T/execsnoop.json")" = true
ok "the report's appendix names the mechanism (tracefs)" \
	sh -c "tar -xJOf '$B' report.md | grep -q '| killsnoop | ok | tracefs |'"
is "$(instances)" "$before" "the run's instances are gone"

# ---- no BTF: bpf() works, CO-RE cannot: tracefs again ----
: >"$T/empty"
mkdir -p "$T/nobtf"
unshare -m --propagation private sh -c "$TRACEFS
	mount --bind '$T/empty' /sys/kernel/btf/vmlinux &&
	exec '$SONDE' run --window 2 --max-overhead 0 --out '$T/nobtf' --json --no-progress" \
	>"$T/nobtf.json" 2>"$T/nobtf.err"
is "$?" 0 "no BTF: sonde run exits 0"
is "$(jq -r '.tools[] | select(.name == "killsnoop") | "\(.status) \(.attach)"' "$T/nobtf.json")" \
	"ok tracefs" "no BTF: killsnoop ran through tracefs"

# ---- bpf() refused, no tracefs: both reasons ----
mkdir -p "$T/notracefs"
unshare -m --propagation private sh -c "umount /sys/kernel/tracing 2>/dev/null; umount /sys/kernel/debug 2>/dev/null;
	exec '$T/seccomp-deny' bpf '$SONDE' run --window 1 --out '$T/notracefs' --json --no-progress" \
	>"$T/notracefs.json" 2>/dev/null
r=$(jq -r '.tools[] | select(.name == "killsnoop") | .reason' "$T/notracefs.json")
ok "no tracefs: killsnoop's reason says bpf() was refused ..." grep -q "a seccomp filter refuses bpf()" <<<"$r"
ok "... and that tracefs is not mounted, and how to mount it" \
	grep -q "nor through tracefs: tracefs is not mounted.*mount -t tracefs" <<<"$r"

# ---- kill -9: the next run removes the dead run's instances, not a live one's ----
sleep 120 &
LIVE=$!
PIDS+=("$LIVE")
LIVE_START=$(awk '{ print $22 }' "/proc/$LIVE/stat")
FAKE=sonde-$LIVE-$LIVE_START-killsnoop
unshare -m --propagation private sh -c "$TRACEFS; mkdir /sys/kernel/tracing/instances/$FAKE"
mkdir -p "$T/killed"
setsid unshare -m --propagation private sh -c "$TRACEFS
	exec '$T/seccomp-deny' bpf '$SONDE' run --window 30 --max-overhead 0 --out '$T/killed' \
		--no-progress" >/dev/null 2>&1 &
RUN=$!
PGROUPS+=("$RUN")
for _ in $(seq 100); do
	[ "$(instances | wc -w)" -ge 3 ] && break
	sleep 0.1
done
left=$(instances)
ok "a run in progress has its instances ($left)" grep -q -- '-killsnoop' <<<"${left/sonde-$LIVE-/}"
kill -9 -- -"$RUN" 2>/dev/null
wait "$RUN" 2>/dev/null
ok "kill -9 leaves them behind" test "$(instances)" = "$left"
mkdir -p "$T/next"
unshare -m --propagation private sh -c "$TRACEFS
	exec '$T/seccomp-deny' bpf '$SONDE' run --window 1 --max-overhead 0 --out '$T/next' \
		--no-progress" >/dev/null 2>&1
is "$(instances)" "sonde-$LIVE-$LIVE_START-killsnoop " \
	"the next run removed the dead run's instances, and left the live process's"
unshare -m --propagation private sh -c "$TRACEFS; rmdir /sys/kernel/tracing/instances/$FAKE"
FAKE=""
is "$(instances)" "$before" "nothing of this test is left in tracefs"

done_testing
