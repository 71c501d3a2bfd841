#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: sonde's disk utilization agrees with iostat -x %util over the same 5 s.
# We attach a loop device to a file in a temp dir, keep it partly busy with
# a duty cycle of direct 1 MiB reads (a burst, then a pause about a third of
# the burst's length), run iostat and sonde together, and compare the loop
# device's %util with use.disk-utilization busy_pct for that instance, within
# 5 points. Both read io_ticks from /proc/diskstats; what differs is a few ms
# of start time, so we retry up to three times before calling a disagreement.
# sonde runs with --no-bpf --no-perf --no-drilldown here: loading its BPF tools
# costs CPU before its window starts, which mpstat's window (started at the
# same moment) would count and sonde's would not; what is compared is the
# accounting of the same /proc counters.
. tests/lib/tap.sh

TOL=5
ATTEMPTS=3

for tool in jq iostat losetup dd setsid; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to attach a loop device"

T=$(mktemp -d /tmp/sonde-live-disk.XXXXXX)
LOOP=
LOAD=
PIDS=()
cleanup() {
	# the load runs in its own process group: end the loop and any dd in flight
	[ -n "$LOAD" ] && kill -- -"$LOAD" 2>/dev/null
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export LC_ALL=C

truncate -s 256M "$T/backing.img" || skip_all "cannot create a 256 MiB file in $T"
LOOP=$(losetup -f --show "$T/backing.img" 2>"$T/losetup.err")
if [ -z "$LOOP" ] || [ ! -b "$LOOP" ]; then
	LOOP=
	skip_all "losetup -f --show failed: $(tr '\n' ' ' <"$T/losetup.err")"
fi
DEV=${LOOP##*/}
diag "loop device $LOOP backed by $T/backing.img"

# Warm the page cache under the loop device so every burst costs the same.
dd if="$LOOP" of=/dev/null bs=1M iflag=direct status=none
ms() { date +%s%N; }
t0=$(ms)
dd if="$LOOP" of=/dev/null bs=1M count=64 iflag=direct status=none
t1=$(ms)
burst_ms=$(((t1 - t0) / 1000000))
[ "$burst_ms" -ge 3 ] || burst_ms=3
pause=$(awk -v b="$burst_ms" 'BEGIN { printf "%.3f", b / 3000 }')
diag "one 64 MiB burst takes $burst_ms ms; pausing $pause s between bursts"
setsid bash -c "while :; do dd if='$LOOP' of=/dev/null bs=1M count=64 iflag=direct status=none; sleep $pause; done" &
LOAD=$!
sleep 1

# within A B: |A - B| <= TOL
within() {
	awk -v a="$1" -v b="$2" -v t="$TOL" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'
}
iostat_util() { # FILE DEV
	jq -r --arg d "$2" '.sysstat.hosts[0].statistics[0].disk[] | select(.disk_device == $d) | .util' \
		"$1" 2>/dev/null
}
sonde_util() { # FILE DEV
	jq -r --arg d "$2" '.checks[] | select(.id == "use.disk-utilization") | .metrics[]
		| select(.name == "busy_pct" and .instance == $d) | .value * 100 | round / 100' "$1" 2>/dev/null
}

agreed=0
for attempt in $(seq 1 $ATTEMPTS); do
	A=$T/$attempt
	mkdir -p "$A/out"
	# -y: no since-boot report first; one 5 s interval, extended stats, devices only
	iostat -o JSON -x -d -y "$DEV" 5 1 >"$A/iostat.json" 2>"$A/iostat.err" &
	ip=$!
	"$SONDE" run --window 5 --interval 1 --no-bpf --no-perf --no-drilldown --no-progress --json --out "$A/out" \
		>"$A/sonde.json" 2>"$A/sonde.err" &
	sp=$!
	PIDS+=("$ip" "$sp")
	wait "$ip"
	io_rc=$?
	wait "$sp"
	sonde_rc=$?
	i_util=$(iostat_util "$A/iostat.json" "$DEV")
	s_util=$(sonde_util "$A/sonde.json" "$DEV")
	diag "attempt $attempt: iostat rc=$io_rc $DEV %util=$i_util; sonde rc=$sonde_rc busy_pct=$s_util"
	if [ "$io_rc" -eq 0 ] && [ "$sonde_rc" -eq 0 ] && within "$i_util" "$s_util"; then
		agreed=1
		break
	fi
done

is "$io_rc" 0 "iostat exits 0"
is "$sonde_rc" 0 "sonde run --window 5 --json exits 0"
[ "$sonde_rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$A/sonde.err"
ok "iostat reported %util for $DEV" test -n "$i_util"
ok "sonde reported busy_pct with instance $DEV" test -n "$s_util"
ok "the load is there: iostat sees $DEV 5..99% busy ($i_util)" \
	awk -v v="$i_util" 'BEGIN { exit !(v != "" && v >= 5 && v <= 99) }'
awk -v v="$i_util" 'BEGIN { exit !(v != "" && (v < 30 || v > 90)) }' &&
	diag "note: $DEV was $i_util% busy, outside the 30-90% this test aims for"
ok "$DEV busy: sonde $s_util vs iostat $i_util (within $TOL points)" within "$s_util" "$i_util"
ok "agreement within $ATTEMPTS attempts (took $attempt)" test "$agreed" -eq 1

done_testing
