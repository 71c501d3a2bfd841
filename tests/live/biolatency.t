#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: the biolatency BPF tool sees the direct I/O we cause. Two loop devices
# on files of our own: A keeps the default scheduler (none on loop: requests go
# straight to the driver), B gets mq-deadline (requests are inserted into the
# scheduler, then issued). During one sonde window, dd writes W blocks of 64 KiB
# to each (oflag=direct) and reads R blocks of 4 KiB (iflag=direct). We assert
# on raw/bpf/biolatency.json: both disks by name, read and write counts and
# bytes within a small margin of what dd did (udev may probe a new device), the
# latency mass in plausible buckets, no errors, B's requests queued, dd's pid
# and comm among the slowest I/Os, and the checks' metrics in findings.json.
# Other helpers load this machine: nothing here depends on the rest being quiet.
. tests/lib/tap.sh

W=300
R=600

for tool in jq losetup dd tar xz truncate; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to attach loop devices and load BPF"
avail=$("$SONDE" list 2>&1 | grep '^bpf\.biolatency ')
case "$avail" in
*" yes ("*) ;;
*) skip_all "biolatency cannot run here: ${avail:-not listed by sonde list}" ;;
esac

T=$(mktemp -d /tmp/sonde-live-biolat.XXXXXX)
LOOPS=()
SP=
B_SCHED=
cleanup() {
	[ -n "$SP" ] && kill "$SP" 2>/dev/null
	wait 2>/dev/null
	# the loop device outlives losetup -d: give it back its scheduler
	[ -n "$B_SCHED" ] && echo "$B_SCHED" >"/sys/block/$B/queue/scheduler" 2>/dev/null
	for l in "${LOOPS[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export LC_ALL=C

attach() { # FILE: prints the loop device
	truncate -s 64M "$1" || return 1
	losetup -f --show "$1" 2>>"$T/losetup.err"
}
LA=$(attach "$T/a.img")
[ -b "$LA" ] || skip_all "losetup -f --show failed: $(tr '\n' ' ' <"$T/losetup.err")"
LOOPS+=("$LA")
LB=$(attach "$T/b.img")
[ -b "$LB" ] || skip_all "losetup -f --show failed: $(tr '\n' ' ' <"$T/losetup.err")"
LOOPS+=("$LB")
A=${LA##*/}
B=${LB##*/}
# B is attached to our file: its scheduler is ours to choose for the test, and the
# cleanup restores it (the loop device itself stays in the kernel after losetup -d)
B_SCHED=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$B/queue/scheduler")
QUEUED=1
echo mq-deadline >"/sys/block/$B/queue/scheduler" 2>/dev/null || QUEUED=0
diag "A=$A ($(cat /sys/block/$A/queue/scheduler)), B=$B ($(cat /sys/block/$B/queue/scheduler))"
sleep 1 # let udev finish probing the new devices before the window

mkdir "$T/out"
"$SONDE" run --window 6 --interval 1 --no-progress --json --out "$T/out" \
	--check use.disk-saturation --check use.disk-errors --check workload.disk-what \
	>"$T/findings.json" 2>"$T/sonde.err" &
SP=$!
sleep 2 # the tools attach before the window starts; the I/O lands well inside it

DD_PIDS=()
run_dd() {
	dd "$@" status=none &
	DD_PIDS+=($!)
	wait $!
}
for l in "$LA" "$LB"; do
	run_dd if=/dev/zero of="$l" bs=64k count=$W oflag=direct
	run_dd if="$l" of=/dev/null bs=4k count=$R iflag=direct
done
diag "dd pids: ${DD_PIDS[*]}"
wait "$SP"
rc=$?
SP=
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"

bundle=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
J=$T/biolatency.json
tar -xJOf "$bundle" --wildcards '*raw/bpf/biolatency.json' >"$J" 2>/dev/null
ok "the bundle has raw/bpf/biolatency.json" test -s "$J"
jq_true() { jq -e "$@" >/dev/null 2>&1; }
ok "biolatency ran (status ok)" jq_true '.status == "ok"' "$J"
diag "attach $(jq -r .attach "$J"), runs $(jq -r .runs "$J"), drops $(jq -r .drops "$J"), setup $(jq -r .setup_ms "$J") ms"

# op DISK OP FIELD: a number from data.disks[name == DISK].ops[OP]
op() { jq -r --arg d "$1" --arg o "$2" --arg f "$3" \
	'[.data.disks[] | select(.name == $d) | .ops[$o][$f] // 0] | add // 0' "$J"; }
# slots DISK OP KIND LO HI: requests in log2 slots LO..HI (0-based) of a histogram
slots() { jq -r --arg d "$1" --arg o "$2" --arg k "$3" --argjson lo "$4" --argjson hi "$5" \
	'[.data.disks[] | select(.name == $d) | .ops[$o][$k] // [] | to_entries[]
	  | select(.key >= $lo and .key <= $hi) | .value] | add // 0' "$J"; }
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

for d in "$A" "$B"; do
	ok "$d is in the capture, by name" jq_true --arg d "$d" '[.data.disks[] | select(.name == $d and .named)] | length == 1' "$J"
	wc=$(op "$d" write completed)
	rdc=$(op "$d" read completed)
	diag "$d: write completed $wc measured $(op "$d" write measured) queued $(op "$d" write queued); read completed $rdc measured $(op "$d" read measured) queued $(op "$d" read queued)"
	# a 64 KiB direct write is one request; udev's probe of a new device only reads
	ok "$d: writes completed $wc, dd did $W" between "$wc" "$W" $((W + 4))
	ok "$d: reads completed $rdc, dd did $R (+ a probe's few)" between "$rdc" "$R" $((R + 64))
	ok "$d: every write measured (issued in the window)" test "$(op "$d" write measured)" -eq "$wc"
	ok "$d: write bytes $(op "$d" write bytes) = $W x 64 KiB" test "$(op "$d" write bytes)" -eq $((W * 65536))
	ok "$d: read bytes at least $R x 4 KiB" test "$(op "$d" read bytes)" -ge $((R * 4096))
	ok "$d: no completion errors" test "$(op "$d" read errors)" -eq 0 -a "$(op "$d" write errors)" -eq 0
	# latency mass: all below 1 s (slots 0..19), and through a loop worker at least 2 us for most
	for o in read write; do
		m=$(op "$d" $o measured)
		all=$(slots "$d" $o total 0 31)
		sane=$(slots "$d" $o total 0 19)
		above2us=$(slots "$d" $o service 1 31)
		ok "$d $o: histogram holds every measured request ($all of $m)" test "$all" -eq "$m"
		ok "$d $o: >= 95% of total time under 1 s ($sane of $all)" test $((sane * 100)) -ge $((all * 95))
		ok "$d $o: most service times at least 2 us ($above2us of $all)" test $((above2us * 2)) -ge "$all"
	done
done

if [ "$QUEUED" -eq 1 ]; then
	q=$(($(op "$B" write queued) + $(op "$B" read queued)))
	m=$(($(op "$B" write measured) + $(op "$B" read measured)))
	ok "$B (mq-deadline): >= 90% of requests queued ($q of $m)" test $((q * 10)) -ge $((m * 9))
	qm=$(slots "$B" write queue 0 31)
	ok "$B: the queue histogram holds the queued writes ($qm)" test "$qm" -eq "$(op "$B" write queued)"
else
	skip "$B queued" "mq-deadline is not available for loop devices here"
	skip "$B queue histogram" "mq-deadline is not available for loop devices here"
fi
qa=$(($(op "$A" write queued) + $(op "$A" read queued)))
diag "$A (scheduler none): $qa requests went through an insert"

# dd among the slowest: the issuer's pid and comm
pids_re=$(IFS='|'; echo "${DD_PIDS[*]}")
ok "the slowest I/Os are bounded (<= slowest_max)" jq_true '(.data.slowest | length) <= .data.slowest_max' "$J"
# The list is the host's slowest, all disks: during a busy test suite, writeback
# on the system disk can fill it. Then there is nothing of ours to find in it.
on_loops=$(jq --arg a "$A" --arg b "$B" '[.data.slowest[] | select(.disk == $a or .disk == $b)] | length' "$J")
if [ "$on_loops" -gt 0 ]; then
	ok "a dd of ours (pid ${DD_PIDS[*]}) is among the slowest I/Os, on $A or $B" jq_true \
		--arg a "$A" --arg b "$B" --arg re "^($pids_re)\$" \
		'[.data.slowest[] | select(.comm == "dd" and (.pid | tostring | test($re)) and (.disk == $a or .disk == $b))] | length > 0' "$J"
else
	skip "a dd of ours among the slowest I/Os" "the $(jq '.data.slowest | length' "$J") slowest I/Os of the window were all on other disks ($(jq -r '[.data.slowest[].disk] | unique | join(", ")' "$J"))"
fi
ok "slowest I/Os are sorted by total time" jq_true '[.data.slowest[].total_us] as $t | $t == ($t | sort | reverse)' "$J"

# the checks read it
F=$T/findings.json
metric() { # CHECK NAME INSTANCE
	jq -r --arg c "$1" --arg n "$2" --arg i "$3" \
		'.checks[] | select(.id == $c) | .metrics[] | select(.name == $n and .instance == $i) | .value' "$F"
}
ok "use.disk-saturation: service_p99_ms for $A" test -n "$(metric use.disk-saturation service_p99_ms "$A")"
if [ "$QUEUED" -eq 1 ]; then
	ok "use.disk-saturation: queue_p99_ms for $B" test -n "$(metric use.disk-saturation queue_p99_ms "$B")"
else
	skip "queue_p99_ms for $B" "mq-deadline is not available for loop devices here"
fi
is "$(metric use.disk-errors io_errors "$A")" 0 "use.disk-errors: io_errors 0 for $A"
ok "workload.disk-what: io_p99_ms for $B" test -n "$(metric workload.disk-what io_p99_ms "$B")"

# without BPF every biolatency metric is a known unknown with the reason
"$SONDE" run --window 1 --interval 1 --no-progress --json --no-bpf --out "$T/out" \
	--check use.disk-saturation --check use.disk-errors --check workload.disk-what \
	>"$T/nobpf.json" 2>"$T/nobpf.err"
for cm in use.disk-saturation:queue_p99_ms use.disk-saturation:service_p99_ms \
	use.disk-errors:io_errors workload.disk-what:io_p99_ms; do
	ok "--no-bpf: ${cm%%:*} ${cm#*:} is unknown (BPF tools disabled)" jq_true \
		--arg c "${cm%%:*}" --arg n "${cm#*:}" \
		'[.checks[] | select(.id == $c) | .unknowns[] | select(.metric == $n and (.reason | contains("BPF tools disabled")))] | length == 1' \
		"$T/nobpf.json"
done

done_testing
