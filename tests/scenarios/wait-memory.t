#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: memory stalls (issue 26). scn-thrash (4 threads) reads random
# pages of a 256 MiB file it maps, in a memory cgroup limited to 32 MiB: every access
# past the limit reclaims the cgroup's pages and faults the page back from
# the disk. The host has memory to spare, so host-wide memory checks see
# little; the thread states must show where the process's time goes:
# use.memory-waits warns or is critical, scn-thrash its culprit, the waits
# named (reclaim, page faults), and they are counted as memory, not disk.
. tests/lib/tap.sh

COMM=scn-thrash
for tool in jq cc dd; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a memory cgroup, the task iterator)"

if [ -d /sys/fs/cgroup/memory ] && [ -f /sys/fs/cgroup/memory/memory.limit_in_bytes ]; then
	CG=/sys/fs/cgroup/memory/sonde-scn-thrash.$$
	LIMIT=memory.limit_in_bytes
elif grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null &&
	grep -qw memory /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
	CG=/sys/fs/cgroup/sonde-scn-thrash.$$
	LIMIT=memory.max
else
	skip_all "no memory cgroup controller to limit a process with"
fi

T=$(mktemp -d /var/tmp/sonde-scn-thrash.XXXXXX)
LOAD=
cleanup() {
	[ -n "$LOAD" ] && kill "$LOAD" 2>/dev/null && wait "$LOAD" 2>/dev/null
	[ -d "$CG" ] && rmdir "$CG" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$CG" && echo $((32 << 20)) >"$CG/$LIMIT" || skip_all "cannot make a memory cgroup at $CG"
# written past the page cache (O_DIRECT): its pages are the thrashing process's to fault in
dd if=/dev/urandom of="$T/big" bs=1M count=256 oflag=direct status=none 2>/dev/null ||
	dd if=/dev/urandom of="$T/big" bs=1M count=256 status=none
cat >"$T/thrash.c" <<'C'
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
static volatile unsigned char *map;
static size_t pages;
static void *touch(void *arg)
{
	unsigned seed = (unsigned)(size_t)arg, sum = 0;
	for (;;)
		sum += map[(size_t)rand_r(&seed) % pages * 4096];
	return NULL;
}
int main(int argc, char **argv)
{
	struct stat st;
	int fd = open(argv[1], O_RDONLY);
	pthread_t t;
	if (fd < 0 || fstat(fd, &st))
		return 1;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	pages = st.st_size / 4096;
	for (long i = 1; i < 4; i++)
		pthread_create(&t, NULL, touch, (void *)i);
	touch((void *)0);
	return 0;
}
C
cc -O2 -pthread -o "$T/$COMM" "$T/thrash.c" 2>"$T/cc.err" ||
	skip_all "cannot build the load: $(head -c 200 "$T/cc.err")"
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" "$3"' sh "$CG" "$T/$COMM" "$T/big" &
LOAD=$!
sleep 1.5
diag "$COMM (pid $LOAD) in $CG ($(($(cat "$CG/$LIMIT") >> 20)) MiB): $(grep -E '^State' /proc/$LOAD/status)"

mkdir -p "$T/out"
"$SONDE" run --window 4 --no-progress --no-drilldown --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 4 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-"): \(.summary)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

f=$(jq -c '[.findings[] | select(.check == "use.memory-waits")][0] // empty' "$T/findings.json")
ok "use.memory-waits is a finding" test -n "$f"
is "$(jq -r .resource <<<"$f")" memory "... on the memory resource"
is "$(jq -r '.culprits[0].comm' <<<"$f")" "$COMM" "... its culprit is $COMM"
ok "... the wait is named: reclaim or a page fault" \
	grep -qE "memory reclaim|a page fault" <<<"$(jq -r .summary <<<"$f")"
tab=$(jq -c '.checks[] | select(.id == "use.memory-waits") | .evidence[] | select(.kind == "table")' "$T/findings.json")
ok "... its table has $COMM's waits" jq -e --arg c "$COMM" '.rows | any(.[1] == $c)' <<<"$tab"
ok "no disk-wait finding blames $COMM for its faults" \
	jq -e --arg c "$COMM" '[.findings[] | select(.check == "use.disk-waits") | .culprits[]?.comm] | index($c) == null' "$T/findings.json"

done_testing
