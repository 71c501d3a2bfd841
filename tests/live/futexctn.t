#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: futexctn sees user lock contention. mutexfight (tests/live/src, built
# here) runs 8 threads fighting over one pthread mutex: all but one are blocked
# in futex(FUTEX_WAIT, 2) at any time. The capture must attribute lock-like
# futex wait time to it, name its futex, and drilldown.user-mutex-who must
# warn with it as the culprit. futexctn hooks every syscall: it runs in
# drill-down windows (selected here with --check; --max-overhead 0 lets it
# trace the whole window whatever it costs). Then futexpong (threads handing
# off through futexes) makes the first window's use.user-mutex-saturation
# warn from the 49 Hz profile alone, and the drill-down traces futexpong alone.
. tests/lib/tap.sh
. tests/lib/drill.sh

for tool in jq cc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root to load BPF programs"
why=$("$SONDE" list 2>/dev/null | awk '$1 == "bpf.futexctn" { $1 = ""; print }')
case "$why" in *yes*) ;; *) skip_all "futexctn cannot run here:$why" ;; esac

T=$(mktemp -d /tmp/sonde-live-futexctn.XXXXXX)
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cc -O1 -pthread -o "$T/mutexfight" tests/live/src/mutexfight.c || skip_all "cannot build the test program"
cc -O1 -pthread -o "$T/futexpong" tests/live/src/futexpong.c || skip_all "cannot build the test program"
"$T/mutexfight" 8 >/dev/null &
PID=$!
sleep 0.5

"$SONDE" run --window 3 --interval 1 --check drilldown.user-mutex-who --max-overhead 0 \
	--out "$T" --no-progress --json >"$T/f.json" 2>"$T/err"
ok "sonde run exits 0" test $? -eq 0
B=$(ls "$T"/sonde-*.tar.xz 2>/dev/null | head -1)
mkdir "$T/x" && tar -xJf "$B" -C "$T/x" raw/bpf/futexctn.json 2>/dev/null
J="$T/x/raw/bpf/futexctn.json"
ok "the bundle holds raw/bpf/futexctn.json" test -s "$J"
is "$(jq -r .status "$J")" ok "futexctn ran"
diag "attach: $(jq -r .attach "$J"), runs $(jq -r .runs "$J"), drops $(jq -r .drops "$J")"
P=$(jq --argjson p "$PID" '.data.processes[] | select(.pid == $p)' "$J")
ok "mutexfight is among the processes" test -n "$P"
lock_s=$(jq -n --argjson p "${P:-null}" '($p.lock_us // 0) / 1e6')
waits=$(jq -n --argjson p "${P:-null}" '$p.lock_count // 0')
diag "mutexfight: $waits lock-like waits, $lock_s s of lock wait in a 3 s window"
# 7 of 8 threads blocked at any time: ~20 thread-seconds; 5 leaves room for a busy host
ok "mutexfight waited at least 5 s on its mutex (7 of 8 threads blocked)" \
	awk -v s="$lock_s" 'BEGIN { exit !(s >= 5) }'
ok "hundreds of lock-like waits" test "${waits:-0}" -ge 100
top_lock=$(jq --argjson p "$PID" '[.data.locks[] | select(.pid == $p)][0].lock_us // 0' "$J")
ok "its most waited-for futex holds most of its lock wait (one mutex)" \
	awk -v a="$top_lock" -v s="$lock_s" 'BEGIN { exit !(a / 1e6 >= 0.9 * s) }'
st=$(jq -r '.checks[] | select(.id == "drilldown.user-mutex-who") | .status' "$T/f.json")
ok "drilldown.user-mutex-who warns (got $st)" test "$st" = warn -o "$st" = crit
cul=$(jq -r '.findings[] | select(.check == "drilldown.user-mutex-who") | .culprits[0].pid' "$T/f.json")
is "$cul" "$PID" "the culprit is mutexfight"
is "$(jq -r '.checks[] | select(.id == "drilldown.user-mutex-who") | .metrics[] | select(.name == "futex_wait_errors") | .status' "$T/f.json")" ok \
	"failed futex waits: a mutex fight is not an error"
kill "$PID" 2>/dev/null
wait "$PID" 2>/dev/null

"$SONDE" run --window 1 --no-bpf --check drilldown.user-mutex-who --out "$T" --no-progress --json >"$T/n.json" 2>/dev/null
ok "--no-bpf: the run completes" test $? -eq 0
is "$(jq -r '.unknowns[] | select(.check == "drilldown.user-mutex-who" and .metric == "mutex_wait_per_cpu") | .reason' "$T/n.json")" \
	"BPF tool futexctn did not run: BPF tools disabled (--no-bpf)" "--no-bpf: mutex_wait_per_cpu is a known unknown with the reason"

# ---- the first window from the profile, the drill-down filtered to the culprit ----
first_window_drill use.user-mutex-saturation futexctn futexpong "$T/futexpong" 30

done_testing
