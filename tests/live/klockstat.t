#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: klockstat sees kernel lock contention. mmapfight (tests/live/src, built
# here) runs 8 threads of one process mapping and unmapping memory: mmap and
# munmap take the process's mmap_lock (an rwsem) for writing, so the threads
# queue on it in the kernel (seconds of rwsem:W wait per second on a 2-CPU VM).
# The capture must attribute that wait to mmapfight, by type (rwsem:W) and by
# caller (the mmap/munmap paths), and drilldown.kernel-mutex-who must warn
# with it as the culprit. klockstat fires on every contended lock: it runs in
# drill-down windows (selected here with --check). Then protfight (threads
# spinning on mmap_lock) makes the first window's use.kernel-mutex-saturation
# warn from the 49 Hz profile alone, and the drill-down traces it alone.
. tests/lib/tap.sh
. tests/lib/drill.sh

for tool in jq cc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root to load BPF programs"
why=$("$SONDE" list 2>/dev/null | awk '$1 == "bpf.klockstat" { $1 = ""; print }')
case "$why" in *yes*) ;; *) skip_all "klockstat cannot run here (the lock:contention tracepoints are Linux 5.19+):$why" ;; esac

T=$(mktemp -d /tmp/sonde-live-klockstat.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cc -O1 -pthread -o "$T/mmapfight" tests/live/src/mmapfight.c || skip_all "cannot build the test program"
cc -O1 -pthread -o "$T/protfight" tests/live/src/protfight.c || skip_all "cannot build the test program"
"$T/mmapfight" 8 &
PID=$!
sleep 0.5

"$SONDE" run --window 3 --interval 1 --check drilldown.kernel-mutex-who --check use.kernel-mutex-utilization \
	--check use.kernel-mutex-errors --out "$T" --no-progress --json >"$T/f.json" 2>"$T/err"
ok "sonde run exits 0" test $? -eq 0
B=$(ls "$T"/sonde-*.tar.xz 2>/dev/null | head -1)
mkdir "$T/x" && tar -xJf "$B" -C "$T/x" raw/bpf/klockstat.json 2>/dev/null
J="$T/x/raw/bpf/klockstat.json"
ok "the bundle holds raw/bpf/klockstat.json" test -s "$J"
is "$(jq -r .status "$J")" ok "klockstat ran"
diag "attach: $(jq -r .attach "$J"), runs $(jq -r .runs "$J"), drops $(jq -r .drops "$J"), not measured $(jq -c .data.not_measured "$J")"
wait_s=$(jq --argjson p "$PID" '[.data.processes[] | select(.pid == $p) | .total_us][0] // 0 | . / 1e6' "$J")
diag "mmapfight waited $wait_s s for kernel locks in a 3 s window"
ok "mmapfight waited at least 0.5 s for kernel locks" awk -v s="$wait_s" 'BEGIN { exit !(s >= 0.5) }'
is "$(jq -r --argjson p "$PID" '[.data.processes[] | select(.pid == $p) | .comm][0]' "$J")" mmapfight "named by its comm"
rw=$(jq '[.data.types[] | select(.type == "rwsem:W") | .total_us][0] // 0 | . / 1e6' "$J")
ok "rwsem:W waits of at least 0.5 s (mmap_lock for writing)" awk -v s="$rw" 'BEGIN { exit !(s >= 0.5) }'
callers=$(jq -r '[.data.callers[] | select(.type == "rwsem:W") | .caller] | join(" ")' "$J")
diag "rwsem:W callers: $callers"
case " $callers " in
*" __vm_munmap "* | *" vm_mmap_pgoff "* | *" do_vmi_munmap "* | *" vm_munmap "* | *" __do_sys_munmap "*)
	ok "an mmap/munmap path is among the rwsem:W callers" true ;;
*) ok "an mmap/munmap path is among the rwsem:W callers" false ;;
esac
is "$(jq -r .data.kernel_symbols "$J")" ok "kernel frames are named"
st=$(jq -r '.checks[] | select(.id == "drilldown.kernel-mutex-who") | .status' "$T/f.json")
ok "drilldown.kernel-mutex-who warns (got $st)" test "$st" = warn -o "$st" = crit
is "$(jq -r '.findings[] | select(.check == "drilldown.kernel-mutex-who") | .culprits[0].pid' "$T/f.json")" \
	"$PID" "the culprit is mmapfight"
is "$(jq -r '.checks[] | select(.id == "use.kernel-mutex-utilization") | .status' "$T/f.json")" unknown \
	"use.kernel-mutex-utilization is a known unknown"
is "$(jq -r '.checks[] | select(.id == "use.kernel-mutex-errors") | .status' "$T/f.json")" unknown \
	"use.kernel-mutex-errors is a known unknown"
kill "$PID" 2>/dev/null
wait "$PID" 2>/dev/null

# ---- the first window from the profile, the drill-down filtered to the culprit ----
first_window_drill use.kernel-mutex-saturation klockstat protfight "$T/protfight" 30

done_testing
