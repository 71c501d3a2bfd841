#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: tasks running out. sondethreads, in a v1 pids cgroup with pids.max
# 600, starts 20 threads a second (each sleeps): the cgroup refuses a fork in
# about half a minute. sonde must give the cgroup (or the process, against its
# cgroup's room) a time that matches what is left and the rate (within a factor
# of 2), and name sondethreads.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq python3
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a pids cgroup)"
CGROOT=/sys/fs/cgroup/pids
[ -w "$CGROOT/cgroup.procs" ] || skip_all "no writable cgroup v1 pids controller at $CGROOT"

T=$(mktemp -d /tmp/sonde-scn-tasks.XXXXXX)
CG=$CGROOT/sonde-tasks-$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	runout_rmcg "$CGROOT" "$CG"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir "$CG" || skip_all "cannot make $CG"
echo 600 >"$CG/pids.max"
cat >"$T/sondethreads" <<'PY'
import threading, time
with open("/proc/self/comm", "w") as f:
    f.write("sondethreads")
def idle():
    time.sleep(120)
for _ in range(1200):
    try:
        threading.Thread(target=idle, daemon=True).start()
    except RuntimeError:
        pass
    time.sleep(0.05)
PY
sh -c 'echo $$ > "$1/cgroup.procs" && exec python3 "$2"' sh "$CG" "$T/sondethreads" &
PID=$!
PIDS+=($PID)
runout_sample "$T/samples" cat "$CG/pids.current"
sleep 1

runout_run "$T/f.json" --check use.task-runout
F=$T/f.json
cur=$(runout_at_end "$F" "$T/samples")
cg_left=$(runout_metric "$F" use.task-runout time_left_s "/sonde-tasks-$$")
p_left=$(runout_metric "$F" use.task-runout time_left_s "sondethreads (pid $PID)")
diag "the cgroup held $cur tasks of 600 at the end of the window; time left: cgroup ${cg_left:-none} s, process ${p_left:-none} s"
left=${cg_left:-$p_left}
runout_between "time to pids.max matches what is left at 20 threads/s" "$left" \
	"$(awk -v c="$cur" 'BEGIN { print (600 - c) / 20 / 2 }')" "$(awk -v c="$cur" 'BEGIN { print (600 - c + 10) / 20 * 2 }')"
is "$(runout_status "$F" use.task-runout)" crit "use.task-runout is crit"
is "$(runout_finding "$F" use.task-runout '.culprits[0].comm')" sondethreads "it names sondethreads"
done_testing
