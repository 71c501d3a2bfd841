#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: disk saturation. A loop device backed by a file of ours, and 16
# readers, copies of dd named scn-diskio, each reading it with direct I/O in a
# loop: 16 requests in flight against a device that serves them one queue at a
# time, so requests queue (aqu-sz well past the warning of 4) and the readers
# spend the window blocked on I/O. The first finding must be disk saturation
# (the queue), with an scn-diskio reader as its culprit (the process that waited
# longest for I/O); the CPU the readers and the loop worker burn, and the
# threads they leave in D state, are consequences, not the bottleneck.
. tests/lib/tap.sh

COMM=scn-diskio
NREADERS=16
for tool in jq losetup dd setsid; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to attach a loop device"

T=$(mktemp -d /tmp/sonde-scn-disk.XXXXXX)
LOOP=
LOAD=
cleanup() {
	# the readers run in their own process group: end them and any dd in flight
	[ -n "$LOAD" ] && kill -- -"$LOAD" 2>/dev/null
	wait 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# sparse: reading holes costs no disk space
truncate -s 64G "$T/backing.img" || skip_all "cannot create a 64 GiB sparse file in $T"
LOOP=$(losetup -f --show "$T/backing.img" 2>"$T/losetup.err")
if [ -z "$LOOP" ] || [ ! -b "$LOOP" ]; then
	LOOP=
	skip_all "losetup -f --show failed: $(tr '\n' ' ' <"$T/losetup.err")"
fi
DEV=${LOOP##*/}
cp "$(command -v dd)" "$T/$COMM"
# each reader reads from its own offset to the end of the 64 GiB (sparse) device, 4 KiB at a
# time, direct (no page cache): minutes of work, so every reader lives through the
# window. (Short-lived readers restarted by a shell loop would not do: the kernel adds
# a reaped child's I/O to its parent's /proc/PID/io, so the loop's shell would look
# like the reader.)
setsid bash -c "for i in \$(seq 0 $((NREADERS - 1))); do
	'$T/$COMM' if='$LOOP' of=/dev/null bs=4k skip=\$((i * 65536)) iflag=direct status=none &
done; wait" &
LOAD=$!
diag "$NREADERS $COMM readers on $LOOP ($(cat /sys/block/$DEV/queue/scheduler)) backed by $T/backing.img"
sleep 1

mkdir -p "$T/out"
"$SONDE" run --window 5 --no-progress --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 5 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-")\(if .explained_by then " (explained by \(.explained_by.check))" else "" end)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

q=$(jq -r --arg d "$DEV" '.checks[] | select(.id == "use.disk-saturation") | .metrics[]
	| select(.name == "queue_size" and .instance == $d) | .value' "$T/findings.json")
diag "$DEV queue size (aqu-sz): $q"
ok "the load is there: $DEV has requests queued (aqu-sz $q >= 4)" \
	awk -v v="$q" 'BEGIN { exit !(v != "" && v >= 4) }'
is "$(jq -r '.findings[0] | "\(.resource).\(.metric)"' "$T/findings.json")" disk.saturation \
	"the first finding is disk saturation"
is "$(jq -r '.findings[0].culprits[0].comm' "$T/findings.json")" "$COMM" "its culprit is $COMM"
ok "the verdict names $COMM" grep -q "culprit: $COMM" <(jq -r .verdict "$T/findings.json")

done_testing
