#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: writers stuck in D behind a frozen file system (issue 26). An
# ext4 file system on a loop device is frozen (fsfreeze, as a snapshot
# does), then scn-frozen (4 threads) and two shells write to it: they sleep
# uninterruptibly, the load average rises, the CPUs and disks idle. The
# thread states must name them and where they wait: use.filesystem-waits is
# critical, scn-frozen its first culprit, the wait named (the
# percpu rwsem of the superblock in their kernel stacks: "a frozen file system"); the threads in D
# are counted in the load average's explanation (workload.process-how).
. tests/lib/tap.sh

COMM=scn-frozen
for tool in jq python3 mkfs.ext4 losetup fsfreeze mount umount; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (loop devices, mount, fsfreeze, the task iterator)"

T=$(mktemp -d /var/tmp/sonde-scn-frozen.XXXXXX)
MNT=$T/mnt
PIDS=()
cleanup() {
	# thaw first: a writer in D cannot die before
	mountpoint -q "$MNT" && fsfreeze -u "$MNT" 2>/dev/null
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	mountpoint -q "$MNT" && umount "$MNT"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$MNT"
truncate -s 64M "$T/fs.img"
mkfs.ext4 -q -F "$T/fs.img" >/dev/null 2>&1 || skip_all "mkfs.ext4 failed"
mount -o loop "$T/fs.img" "$MNT" 2>"$T/mount.err" || skip_all "cannot mount a loop device: $(head -c 200 "$T/mount.err")"
fsfreeze -f "$MNT" || skip_all "fsfreeze refused on $MNT"

# 4 threads each open a new file there: they block at once, in D
python3 - "$COMM" "$MNT" <<'PY' &
import ctypes, sys, threading
libc = ctypes.CDLL(None)
libc.prctl(15, sys.argv[1].encode(), 0, 0, 0)   # PR_SET_NAME: the comm
def write(i):
    with open("%s/f%d" % (sys.argv[2], i), "w") as f:
        f.write("x")
ts = [threading.Thread(target=write, args=(i,)) for i in range(4)]
for t in ts: t.start()
for t in ts: t.join()
PY
PIDS+=($!)
for i in 1 2; do
	sh -c "echo $i > $MNT/sh$i" &
	PIDS+=($!)
done
sleep 1
diag "$COMM (pid ${PIDS[0]}) and two shells write to frozen $MNT: $(ps -o stat= -p "${PIDS[0]}")"

mkdir -p "$T/out"
"$SONDE" run --window 4 --no-progress --no-drilldown --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 4 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-"): \(.summary)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

f=$(jq -c '[.findings[] | select(.check == "use.filesystem-waits")][0] // empty' "$T/findings.json")
ok "use.filesystem-waits is a finding" test -n "$f"
is "$(jq -r .severity <<<"$f")" crit "... critical: they wait the whole window"
is "$(jq -r .resource <<<"$f")" filesystem "... on the filesystem resource"
is "$(jq -r '.culprits[0].comm' <<<"$f")" "$COMM" "... its first culprit is $COMM (4 threads)"
ok "... the shells are culprits too" jq -e '[.culprits[].comm] | index("sh") != null' <<<"$f"
ok "... the wait is named: the file system is frozen" grep -q "a frozen file system" <<<"$(jq -r .summary <<<"$f")"
ok "... they are counted in the load average" grep -q "in D on average, counted in the load average" <<<"$(jq -r .summary <<<"$f")"
is "$(jq -r '.use_matrix.filesystem.saturation.status' "$T/findings.json")" crit \
	"the filesystem saturation cell is critical (measured, no longer n/a)"
ok "the first finding is the frozen file system" jq -e '.findings[0].check == "use.filesystem-waits"' "$T/findings.json"

d=$(jq -r '.checks[] | select(.id == "workload.process-how") | .metrics[] | select(.name == "load_uninterruptible_threads") | .value' "$T/findings.json")
diag "threads in D at the rounds, on average: $d"
ok "workload.process-how counts at least the 6 writers in D" awk -v d="$d" 'BEGIN { exit !(d >= 5.5) }'
ok "... and no disk or CPU finding blames them" \
	jq -e --arg c "$COMM" '[.findings[] | select(.resource == "disk" or .resource == "cpu") | .culprits[]?.comm] | index($c) == null' "$T/findings.json"

done_testing
