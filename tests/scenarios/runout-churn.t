#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: steady churn is not running out. For the whole window the test's
# own processes allocate and free 200 MiB in 2 s cycles (sondechurnmem), write
# and delete a 40 MiB file on a small file system of their own every second
# (sondechurnfs), open and close 200 connections a second to a loopback
# listener that accepts at once (sondechurnnet), start and join 50 threads a
# second (sondechurnthr) and open and close 100 fds a second. None of it is a
# trend: no exhaustion check may name one of them, nor give their file system
# or listener a time to exhaustion. (Others' loads on a shared host may still
# be findings: they are printed, not asserted.)
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq perl python3 mkfs.ext4 losetup
[ "$(id -u)" -eq 0 ] || skip_all "needs root (to mount a loop file system)"

T=$(mktemp -d /tmp/sonde-scn-churn.XXXXXX)
MNT=$T/fs
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	mountpoint -q "$MNT" && umount "$MNT"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$MNT"
truncate -s 128M "$T/fs.img"
mkfs.ext4 -q -F -m 0 "$T/fs.img" && mount -o loop "$T/fs.img" "$MNT" || skip_all "cannot mount a loop device"

cat >"$T/mem.pl" <<'PERL'
$0 = "sondechurnmem";
for (1 .. 20) { my $a = "x" x (200 << 20); sleep 1; undef $a; sleep 1 }
PERL
cat >"$T/fs.pl" <<'PERL'
use IO::Handle;
$0 = "sondechurnfs";
chdir(shift) or die;
for (1 .. 40) {
	open(my $f, '>', "tmp") or die; print $f "x" x (40 << 20); $f->flush; $f->sync; close $f;
	unlink "tmp"; system("sync"); sleep 1;
}
PERL
cat >"$T/net.py" <<'PY'
import socket, threading, time
with open("/proc/self/comm", "w") as f:
    f.write("sondechurnnet")
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(128)
port = srv.getsockname()[1]
def serve():
    while True:
        c, _ = srv.accept()
        c.close()
threading.Thread(target=serve, daemon=True).start()
end = time.time() + 40
while time.time() < end:
    for _ in range(20):
        c = socket.create_connection(("127.0.0.1", port))
        c.close()
        f = open("/dev/null")
        f.close()
    time.sleep(0.1)
PY
cat >"$T/thr.py" <<'PY'
import threading, time
with open("/proc/self/comm", "w") as f:
    f.write("sondechurnthr")
end = time.time() + 40
while time.time() < end:
    ts = [threading.Thread(target=time.sleep, args=(0.5,)) for _ in range(25)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
PY
perl "$T/mem.pl" &
PIDS+=($!)
perl "$T/fs.pl" "$MNT" &
PIDS+=($!)
python3 "$T/net.py" &
PIDS+=($!)
python3 "$T/thr.py" &
PIDS+=($!)
sleep 2

CHECKS=(use.memory-runout use.swap-runout use.filesystem-runout use.fd-runout use.task-runout
	use.network-runout use.network-listen)
args=()
for c in "${CHECKS[@]}"; do args+=(--check "$c"); done
runout_run "$T/f.json" "${args[@]}"
F=$T/f.json
named=$(jq -r '[.findings[] | .culprits[] | .comm | select(startswith("sondechurn"))] | unique | join(" ")' "$F")
is "$named" "" "no exhaustion finding names one of the churning processes"
is "$(runout_metric "$F" use.filesystem-runout time_left_s "$MNT")" "" "the churned file system has no time to full"
is "$(runout_metric "$F" use.filesystem-runout time_left_s "$MNT inodes")" "" "nor to running out of inodes"
for p in "${PIDS[@]}"; do
	comm=$(cat /proc/$p/comm 2>/dev/null) || continue
	for c in use.memory-runout use.fd-runout use.task-runout; do
		is "$(runout_metric "$F" "$c" time_left_s "$comm (pid $p)")" "" "$c: no time to exhaustion for $comm"
	done
done
listeners=$(jq -r '[.checks[] | select(.id == "use.network-listen") | .metrics[] | select(.name == "time_left_s") | .instance] | join(" ")' "$F")
ok "no listener is running out ($listeners)" test -z "$listeners"
done_testing
