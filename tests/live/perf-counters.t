#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: perf.counters (core/perf/counters.c) and the checks on it (workload.cpu-how,
# use.interconnect-utilization).
# - Software counters move: a ping-pong between two processes of ours (1-byte
#   messages over pipes, both pinned to one CPU) makes a known number of context
#   switches (their /proc/PID/status deltas); the system-wide count over the
#   window must hold at least most of them (the machine is shared: only a lower
#   bound is ours to assert).
# - task-clock and cpu-clock, counted per CPU system-wide, advance with the time
#   the counter was enabled on that CPU (the kernel counts the CPU context's
#   time, idle included: `perf stat -a -e task-clock` shows the same), so each
#   CPU's value must be its enabled time within 2%.
# - Hardware counters: on a host without them, the "unsupported" reason is in
#   counters.json and the check reports IPC as a known unknown with it; on a
#   host where cycles counts, IPC must be a positive number.
# - As an unprivileged user with perf_event_paranoid as it is, the run
#   completes and the reason names the paranoid level.
# - --no-perf: nothing is opened and the reason says so.
. tests/lib/tap.sh

for tool in jq tar xz taskset perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (system-wide counters; the unprivileged case is run through su)"
"$SONDE" list 2>/dev/null | grep -q '^perf\.counters .*\(yes\|partly\)' ||
	skip_all "perf.counters does not work here: $("$SONDE" list 2>/dev/null | grep '^perf\.counters')"
taskset -c 0 true 2>/dev/null || skip_all "cannot pin to CPU 0 (offline, or outside our cpuset)"

T=$(mktemp -d /tmp/sonde-live-perf.XXXXXX)
tap_kill_at_exit
export LC_ALL=C

# run NAME ARGS...: sonde run into $T/NAME, raw/ extracted to $T/NAME/x
run() {
	local name=$1
	shift
	mkdir -p "$T/$name/x"
	"$SONDE" run --window 3 --interval 1 --no-progress --out "$T/$name" --json "$@" \
		>"$T/$name/findings.json" 2>"$T/$name/stderr"
	echo $? >"$T/$name/rc"
	tar -xJf "$T"/"$name"/sonde-*.tar.xz -C "$T/$name/x" raw 2>/dev/null
}
# jq_true [--arg K V]... FILTER FILE: FILTER is true on FILE
jq_true() {
	jq -e "$@" >/dev/null 2>&1
}
# Context switches of a process so far (voluntary + involuntary).
ctxt() {
	awk '/^(non)?voluntary_ctxt_switches:/ { s += $2 } END { print s + 0 }' "/proc/$1/status" 2>/dev/null
}

# The ping-pong: parent and child pinned to CPU 0 bounce one byte, each blocking in read.
taskset -c 0 perl -e '
	pipe(my $ar, my $aw); pipe(my $br, my $bw);
	my $b = "x";
	if (fork() == 0) {
		close($aw); close($br);
		while (sysread($ar, $b, 1)) { syswrite($bw, $b, 1) or exit 0 }
		exit 0;
	}
	close($ar); close($bw);
	while (1) { syswrite($aw, $b, 1) or exit 0; sysread($br, $b, 1) or exit 0 }' &
PING=$!
PIDS+=($PING)
sleep 0.5
PONG=$(cat /proc/$PING/task/$PING/children 2>/dev/null | awk '{ print $1 }')
[ -n "$PONG" ] && PIDS+=($PONG)

c0=$(($(ctxt "$PING") + $(ctxt "$PONG")))
run load --check workload.cpu-how --check use.interconnect-utilization
c1=$(($(ctxt "$PING") + $(ctxt "$PONG")))
kill "$PING" $PONG 2>/dev/null
ours=$((c1 - c0))
C="$T/load/x/raw/perf/counters.json"
F="$T/load/findings.json"

is "$(cat "$T/load/rc")" 0 "sonde run with perf.counters exits 0"
ok "raw/perf/counters.json is a sonde.perf/1 document with status ok" \
	jq_true '.schema == "sonde.perf/1" and .status == "ok"' "$C"
total=$(jq -r '.events["context-switches"].value // empty' "$C" 2>/dev/null)
win=$(jq -r '.counted_to_s - .counted_from_s' "$C" 2>/dev/null)
diag "ping-pong context switches during the run: $ours; system-wide over the counted ${win}s: ${total:-none}"
ok "the ping-pong made enough switches to measure (>= 5000: $ours)" [ "$ours" -ge 5000 ]
# Our switches span the whole run (setup and teardown too): the window holds most of them.
ok "system-wide context-switches (${total:-none}) >= 60% of ours ($ours)" \
	awk -v t="${total:-0}" -v o="$ours" 'BEGIN { exit !(t > 0 && t >= 0.6 * o) }'
ok "context-switches has a value per CPU, summing to the total" \
	jq_true '.events["context-switches"] | ([.per_cpu[].value] | add) == .value' "$C"
for clk in task-clock cpu-clock; do
	ok "$clk on each CPU is its enabled time within 2% (system-wide clocks count the CPU's time)" \
		jq_true --arg e "$clk" '(.events[$e].per_cpu | length) > 0 and all(.events[$e].per_cpu[];
			(.value - .enabled_ns | if . < 0 then -. else . end) <= 0.02 * .enabled_ns)' "$C"
done
ok "software counters ran unscaled (running_ratio 1)" \
	jq_true '[.events[] | select(.kind == "software") | .running_ratio] | all(. >= 0.999)' "$C"
ok "workload.cpu-how reports context_switches_per_s > 0" \
	jq_true '.checks[] | select(.id == "workload.cpu-how") | .metrics[]
		| select(.name == "context_switches_per_s") | .value > 0' "$F"
ok "no check ended in error" jq_true '[.checks[] | select(.status == "error")] | length == 0' "$F"

# Hardware counters: either a measurement or a known unknown with the reason, never a zero.
if jq_true '.events.cycles.status == "ok"' "$C"; then
	skip "cycles unsupported reason" "cycles counts on this host"
	ok "IPC is a positive number" jq_true '.checks[] | select(.id == "workload.cpu-how")
		| .metrics[] | select(.name == "ipc") | .value > 0' "$F"
else
	ok "counters.json: cycles is unsupported with an errno and a reason" \
		jq_true '.events.cycles | .status == "unsupported" and (.errno | length > 0)
			and (.reason | test("cycles: "))' "$C"
	ok "counters.json: no value for an unsupported hardware event" \
		jq_true '[.events[] | select(.kind == "hardware" and .status != "ok") | has("value")]
			| all(. == false)' "$C"
	reason=$(jq -r '.events.cycles.reason' "$C")
	ok "workload.cpu-how: IPC is a known unknown with the reason" \
		jq_true --arg r "$(jq -r '.events.instructions.reason' "$C")" \
		'.checks[] | select(.id == "workload.cpu-how") | (.unknowns[] | select(.metric == "ipc")
			| .reason == $r) and ([.metrics[] | select(.name == "ipc")] | length == 0)' "$F"
	ok "use.interconnect-utilization is unknown with the reason" \
		jq_true '.checks[] | select(.id == "use.interconnect-utilization")
			| .status == "unknown" and (.unknowns[0].reason | test("not supported|denied"))' "$F"
	diag "cycles: $reason"
fi

# --no-perf
run noperf --check workload.cpu-how --no-perf
is "$(cat "$T/noperf/rc")" 0 "sonde run --no-perf exits 0"
ok "--no-perf: counters.json says disabled, with no events" \
	jq_true '.status == "disabled" and (.reason | test("--no-perf")) and (has("events") | not)' \
	"$T/noperf/x/raw/perf/counters.json"
ok "--no-perf: the check's unknowns name --no-perf" \
	jq_true '.checks[] | select(.id == "workload.cpu-how") | .status == "unknown"
		and all(.unknowns[]; .reason | test("--no-perf"))' "$T/noperf/findings.json"

# Unprivileged, perf_event_paranoid untouched.
par=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)
if ! command -v su >/dev/null || ! id nobody >/dev/null 2>&1; then
	skip "unprivileged run" "no su or no user nobody"
elif [ -z "$par" ]; then
	skip "unprivileged run" "/proc/sys/kernel/perf_event_paranoid is unreadable"
else
	U="$T/nobody"
	mkdir -p "$U" && chmod 1777 "$T" "$U"
	su nobody -s /bin/bash -c "'$SONDE' run --window 1 --no-progress --out '$U' --json \
		--check workload.cpu-how >'$U/findings.json' 2>'$U/stderr'"
	is "$?" 0 "as nobody (perf_event_paranoid $par): the run completes"
	if [ "$par" -le 0 ]; then
		skip "paranoid reason" "perf_event_paranoid is $par: unprivileged system-wide counting is allowed"
	else
		ok "as nobody: the unknowns name perf_event_paranoid $par" \
			jq_true --arg p "perf_event_paranoid is $par" '.checks[] | select(.id == "workload.cpu-how")
				| .status == "unknown" and (.unknowns | length > 0)
				and all(.unknowns[]; .reason | contains($p))' "$U/findings.json"
	fi
	now=$(cat /proc/sys/kernel/perf_event_paranoid)
	is "$now" "$par" "perf_event_paranoid is unchanged ($par)"
fi

done_testing
