#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Records tests/cli/diff's capture trees (run as root, on a quiet host; the
# committed ones come from the 2-CPU VM of docs/audits.md's figures):
#
#   quiet-1, quiet-2  two audits of the same window, started together (below)
#   before, after     the same workload, then with known changes:
#                     - a function made slower: tests/cli/diff/workload.c spins
#                       in sonde_fast_path, then in sonde_slow_path;
#                     - a process added: 24 sondeadded processes (sleep);
#                     - a disk made slower: a loop device written with direct,
#                       synchronous I/O, backed by a file in /dev/shm (memory),
#                       then by one on the root file system, O_DIRECT.
#
# Each is `sonde run --window 3 --interval 1 --no-drilldown`, its raw/ kept
# without proc.threads (what the diff does not read) and with kernel threads
# cut to their stat (tests/checks/capstrip); processes that were not the
# host's own or the test's (a compiler of another user's build) are dropped
# with --drop-comm. A sysctl and a package changed are tests/cli/hostctx.t's
# (a made-up root): a recording may not change this host's configuration.
#
#   SONDE=... tests/cli/diff/record.sh [--out DIR] [--only "CASE..."] [--drop-comm REGEX]...
#
# --out: where the cases go (default tests/cli/diff); --only: those cases
# (quiet-1 quiet-2 before after); tests/live/diff.t records before and after.
set -eu
cd "$(dirname "$0")/../../.."
SONDE=${SONDE:-$PWD/sonde}
D=tests/cli/diff
ONLY="quiet-1 quiet-2 before after"
STRIP=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) D=$2; shift 2 ;;
	--only) ONLY=$2; shift 2 ;;
	--drop-comm) STRIP+=(--drop-comm "$2"); shift 2 ;;
	*) echo "usage: record.sh [--out DIR] [--only CASES] [--drop-comm REGEX]..." >&2; exit 2 ;;
	esac
done
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
T=$(mktemp -d /tmp/sonde-diff-record.XXXXXX)
LOOP=
FIRST_LOOP=
PIDS=()
GROUPS_=()
cleanup() {
	[ "${#PIDS[@]}" -gt 0 ] && kill "${PIDS[@]}" 2>/dev/null
	for g in "${GROUPS_[@]}"; do kill -- "-$g" 2>/dev/null; done
	wait 2>/dev/null
	[ -n "$LOOP" ] && losetup -d "$LOOP" 2>/dev/null
	rm -rf "$T" "${SHM:-}" "${VT:-}"
}
trap cleanup EXIT
# a signal exits through cleanup too: no loop device or dd left behind
trap 'exit 143' TERM HUP
trap 'exit 130' INT
[ "$(id -u)" = 0 ] || { echo "record.sh: run as root" >&2; exit 2; }
cc -O1 -g -fno-omit-frame-pointer -o "$T/sondebench" tests/cli/diff/workload.c
cp /bin/sleep "$T/sondeadded"
cp /bin/dd "$T/sondeio"
# the disks' backing files: one in memory, one on the root file system (/tmp may be either)
SHM=$(mktemp -d /dev/shm/sonde-diff.XXXXXX)
VT=$(mktemp -d /var/tmp/sonde-diff.XXXXXX)

record() { # CASE
	rm -rf "$T/out-$1" "$D/$1"
	mkdir -p "$T/out-$1" "$D/$1"
	"$SONDE" run --window 3 --interval 1 --no-drilldown --no-progress --out "$T/out-$1" >/dev/null
	tar -xJf "$T/out-$1"/sonde-*.tar.xz -C "$D/$1" raw
	rm -f "$D/$1/raw/proc.threads.cap"
	tests/checks/capstrip "${STRIP[@]}" "$D/$1/raw" >/dev/null
}

# A loop device written by dd (as sondeio), synchronous direct I/O, 4 KiB at a
# time, in a process group of its own; the same device both times.
disk() { # BACKING
	truncate -s 64M "$1"
	if [ -n "$FIRST_LOOP" ]; then
		losetup --direct-io=on "$FIRST_LOOP" "$1"
		LOOP=$FIRST_LOOP
	else
		LOOP=$(losetup --find --show --direct-io=on "$1")
		FIRST_LOOP=$LOOP
	fi
	setsid bash -c 'while :; do "$0" if=/dev/zero of="$1" bs=4k count=16384 \
		oflag=direct,dsync status=none; done' "$T/sondeio" "$LOOP" &
	GROUPS_+=($!)
}
stop() {
	kill "${PIDS[@]}" 2>/dev/null || true
	for g in "${GROUPS_[@]}"; do kill -- "-$g" 2>/dev/null || true; done
	wait 2>/dev/null || true
	PIDS=()
	GROUPS_=()
	losetup -d "$LOOP"
	LOOP=
}

# The quiet pair: two audits of one window, started together, so that the
# host's other work (a shared build machine is never idle for long) is the
# same in both and what differs between them is sampling noise alone.
if want quiet-1 && want quiet-2; then
	record quiet-1 &
	q1=$!
	record quiet-2
	wait "$q1"
else
	want quiet-1 && record quiet-1
	want quiet-2 && record quiet-2
fi

if want before; then
	"$T/sondebench" before 30 &
	PIDS+=($!)
	disk "$SHM/disk"
	sleep 1
	record before
	stop
fi

if want after; then
	"$T/sondebench" after 30 &
	PIDS+=($!)
	for _ in $(seq 24); do
		"$T/sondeadded" 300 &
		PIDS+=($!)
	done
	disk "$VT/disk"
	sleep 1
	record after
	stop
fi
for c in $ONLY; do du -sh "$D/$c/raw"; done
