#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: a leak that resident memory does not show. sondeanon maps a 1 GiB
# file and reads it in (file pages in its RSS), then every 250 ms grows its heap
# by 16 MiB (up to 64 MiB a second) and drops as much of the file mapping
# (MADV_DONTNEED): its RSS stays flat while its anonymous memory grows. Where
# the BPF task iterator records the processes (ANON_PAGES every round),
# use.memory-runout must fit the anonymous memory's own trend, give a time to
# exhaustion that matches what is available at 64 MiB/s (within a factor of 2:
# the allocations take time of their own, more so on a loaded host),
# and name sondeanon. The /proc walk reads RssAnon only at the ends: skipped
# there (the golden case use.memory-runout/anon-proc covers what it says).
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq python3
[ "$(id -u)" -eq 0 ] || skip_all "needs root (BPF task iterator)"

T=$(mktemp -d /tmp/sonde-scn-anon.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

head -c $((1024 << 20)) /dev/zero >"$T/file"
cat >"$T/anon.py" <<'PY'
import mmap, os, sys, time
path, ready = sys.argv[1], sys.argv[2]
with open("/proc/self/comm", "w") as c:
    c.write("sondeanon")
f = open(path, "rb")
size = os.fstat(f.fileno()).st_size
m = mmap.mmap(f.fileno(), size, prot=mmap.PROT_READ)
s = 0
for off in range(0, size, 4096):
    s += m[off]
open(ready, "w").close()
step, heap, off = 16 << 20, [], 0
while off + step <= size:
    heap.append(b"x" * step)
    m.madvise(mmap.MADV_DONTNEED, off, step)
    off += step
    time.sleep(0.25)
time.sleep(5)
PY
python3 "$T/anon.py" "$T/file" "$T/ready" &
PID=$!
PIDS+=($PID)
mem_avail() { awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo; }
runout_sample "$T/avail.samples" mem_avail
# the file read in first (its pages in the RSS), then the heap grows
for _ in $(seq 120); do [ -e "$T/ready" ] && break; sleep 0.25; done
ok "sondeanon read its file in (30 s at most)" test -e "$T/ready"
sleep 1

runout_run "$T/f.json" --check use.memory-runout
F=$T/f.json
src=$(tar -xJOf "$T"/sonde-*.tar.xz --wildcards '*raw/sonde.cap' 2>/dev/null | grep -a '^tasks_source:' | awk '{ print $2 }')
if [ "$src" != bpf_iter_task ]; then
	skip "anonymous memory trend" "the task iterator did not serve (tasks_source ${src:-none}): the /proc walk reads RssAnon at the ends only"
	done_testing
	exit 0
fi
avail=$(runout_at_end "$F" "$T/avail.samples")
left=$(runout_metric "$F" use.memory-runout time_left_s "sondeanon (pid $PID)")
runout_between "sondeanon: time to exhaustion matches what is available at 64 MiB/s" "$left" \
	"$(awk -v a="$avail" 'BEGIN { print a / (64 * 1048576) / 2 }')" \
	"$(awk -v a="$avail" 'BEGIN { print a / (64 * 1048576) * 2 }')"
ok "its anonymous memory has its own trend" grep -q "^sondeanon (pid $PID) anonymous memory$" \
	<(jq -r '.checks[] | select(.id == "use.memory-runout") | .evidence[] | select(.kind == "table") | .rows[]? | .[0]' "$F")
comms=$(jq -r '[.findings[] | select(.check == "use.memory-runout")][0].culprits | map(.comm) | join(" ")' "$F")
is "$comms" sondeanon "the finding names sondeanon"
done_testing
