#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Real OCI containers (runc, cgroup v1 here; tests/lib/runc.sh) named in the
# report as their owners know them:
#   - a CPU hog held to 20% of a CPU: the throttled container is found
#     (use.cgroup-saturation crit), its culprit named "runc NAME";
#   - a memory grower under a 256 MiB limit: its row in container-who, its
#     culprit in the memory checks named by container;
#   - a noisy container of busy loops beside a busy process of the host: the
#     noisy neighbour;
#   - --container NAME narrows the culprits to it;
# and sonde itself run inside a runc container: with the host's PID
# namespace, every capability and the host's cgroups and /run/runc (a
# privileged DaemonSet with hostPID) it sees the host and names the others;
# with its own PID namespace and runc's default capabilities it says what it
# cannot see.
. tests/lib/tap.sh
. tests/lib/runc.sh

command -v jq >/dev/null || skip_all "jq is not installed (make deps)"
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
runc_skip_unless_usable
[ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ] || [ -e /sys/fs/cgroup/cgroup.controllers ] ||
	skip_all "no cgroup CPU controller to hold a container to a quota"

T=$(mktemp -d /tmp/sonde-runc.XXXXXX)
VICTIM=
cleanup() {
	[ -n "$VICTIM" ] && kill -9 "$VICTIM" 2>/dev/null
	runc_cleanup
	wait 2>/dev/null
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

HOG=sonde-hog-$$ MEM=sonde-mem-$$ NOISY=sonde-noisy-$$
RUNC_QUOTA=20000 runc_bundle "$T/hog" "$HOG" -- /bin/sh -c 'while :; do :; done' ||
	skip_all "runc spec failed"
if ! runc_start "$T/hog" "$HOG"; then
	skip_all "runc cannot run a container here: $(head -c 200 "$T/hog/runc.out")"
fi
HOGPID=$RUNC_PID
RUNC_MEM=$((256 << 20)) runc_bundle "$T/mem" "$MEM" -- /usr/bin/perl -e \
	'my @k; for (1 .. 100) { push @k, "x" x (2 << 20); select(undef, undef, undef, 0.25) } sleep 600'
runc_start "$T/mem" "$MEM"
MEMPID=$RUNC_PID
ok "two containers run: $HOG (pid $HOGPID), $MEM (pid $MEMPID)" test -n "$HOGPID" -a -n "$MEMPID"
sleep 1

mkdir -p "$T/out1"
"$SONDE" run --window 4 --interval 1 --no-progress --no-bpf --out "$T/out1" --json \
	--check use.cgroup-saturation --check use.cgroup-utilization --check workload.container-who \
	--check workload.process-how --set workload.process-how.top=1000 >"$T/f1.json" 2>"$T/e1"
is "$?" 0 "sonde run: exit 0"
F=$T/f1.json
sat=$(jq -c --arg n "runc $HOG" '[.findings[] | select(.check == "use.cgroup-saturation")][0]' "$F")
is "$(jq -r .severity <<<"$sat")" crit "the throttled container is found: use.cgroup-saturation crit"
is "$(jq -r .culprits[0].container.label <<<"$sat")" "runc $HOG" "its culprit is named by its container"
is "$(jq -r .culprits[0].pid <<<"$sat")" "$HOGPID" "the container's process, by pid"
ok "the summary names the container: $(jq -r .summary <<<"$sat")" \
	grep -q "^runc $HOG is saturated: CPU throttling" <<<"$(jq -r .summary <<<"$sat")"
W='.checks[] | select(.id == "workload.container-who")'
row=$(jq -c --arg n "runc $MEM" "$W | .evidence[0].rows[] | select(.[0] == \$n)" "$F")
ok "container-who lists $MEM: $row" test -n "$row"
ok "with its memory against its 256 MiB limit" grep -qE "of 256(\.0)? MiB" <<<"$row"
hrow=$(jq -c --arg n "runc $HOG" "$W | .evidence[0].rows[] | select(.[0] == \$n)" "$F")
ok "and $HOG with its throttled periods: $hrow" grep -qE '"(9[0-9](\.[0-9]+)?|100)%"' <<<"$hrow"
H='.checks[] | select(.id == "workload.process-how") | .evidence[] | select(.kind == "table" and (.title | startswith("Thread states by process")))'
# (the thread states read from /proc cover a bounded set of processes on a busy host: the
# containers' processes that are in the table name their container)
named=$(jq -r --arg h "$HOGPID" --arg m "$MEMPID" \
	"[$H | .rows[] | select(.[0] == \$h or .[0] == \$m) | .[-1]] | unique | join(\",\")" "$F")
ok "process-how names the container of its processes ($named)" \
	grep -qxE "(runc $HOG|runc $MEM|runc $HOG,runc $MEM)" <<<"$named"

# --container: the culprits narrowed to the memory grower
mkdir -p "$T/out2"
"$SONDE" analyze "$(ls "$T"/out1/*.tar.xz)" --container "$MEM" --json >"$T/f2.json" 2>"$T/e2"
is "$?" 0 "sonde analyze --container $MEM: exit 0"
others=$(jq -r --arg n "runc $MEM" '[.findings[].culprits[] | select(.container.label != $n)] | length' "$T/f2.json")
is "$others" 0 "no culprit outside $MEM is left"
ok "the throttling finding names its culprit left out" \
	grep -q -- "--container $MEM: 1 culprit outside it left out" "$T/f2.json"

# the noisy neighbour: six busy loops in a container with a large CPU request, a busy
# process of the host beside it
printf '#!/usr/bin/perl\n1 while 1;\n' >"$T/sondevictim"
chmod +x "$T/sondevictim"
"$T/sondevictim" &
VICTIM=$!
# its cpu.shares are a large pod's CPU request: CFS gives it most of the CPUs
RUNC_SHARES=100000 runc_bundle "$T/noisy" "$NOISY" -- /bin/sh -c 'for i in 1 2 3 4 5 6; do (while :; do :; done) & done; wait'
runc_start "$T/noisy" "$NOISY"
NPID=$RUNC_PID
ok "a noisy container runs (pid $NPID)" test -n "$NPID"
sleep 1
mkdir -p "$T/out3"
"$SONDE" run --window 4 --interval 1 --no-progress --out "$T/out3" --json \
	--check workload.container-who --set workload.container-who.noisy_share=0.3 >"$T/f3.json" 2>"$T/e3"
is "$?" 0 "sonde run with the noisy container: exit 0"
s=$(jq -r "$W | .summary" "$T/f3.json")
# a check that did not finish leaves no summary: say what the run said of it instead
[ "$s" = null ] && diag "container-who: $(jq -c '[.errors[]?, .unknowns[]?] | map(select(tostring | test("container-who")))' "$T/f3.json") $(tail -3 "$T/e3")"
ok "the noisy neighbour is named: $s" grep -q "^runc $NOISY is the noisy neighbour: .* of the CPU" <<<"$s"
ok "warn or crit" grep -qE '^(warn|crit)$' <<<"$(jq -r "$W | .status" "$T/f3.json")"
is "$(jq -r "$W | .culprits[0].container.label" "$T/f3.json")" "runc $NOISY" "its processes are the culprits"
kill -9 "$VICTIM" 2>/dev/null
wait "$VICTIM" 2>/dev/null
VICTIM=
runc kill "$NOISY" KILL 2>/dev/null

# sonde inside a container: privileged with the host's PID namespace, then without
TOP=$(cd "$(dirname "$SONDE")" && pwd)
mkdir -p "$T/out4" "$T/out5"
RUNC_HOSTPID=1 RUNC_PRIVILEGED=1 RUNC_BINDS="$TOP:$TOP $T/out4:/out:rw" runc_bundle "$T/in1" "sonde-in-$$" -- \
	"$TOP/$(basename "$SONDE")" run --window 2 --interval 1 --no-progress --no-bpf --out /out --json \
	--check use.cgroup-saturation --check workload.container-who
RUNC_NAMES+=("sonde-in-$$" "sonde-in2-$$")
(cd "$T/in1" && runc run "sonde-in-$$" >"$T/f4.json" 2>"$T/e4" </dev/null)
is "$?" 0 "sonde in a privileged container with the host's PID namespace: exit 0"
tail -2 "$T/e4" | sed 's/^/#   stderr: /'
is "$(jq -r .host.observer.pid_namespace "$T/f4.json")" host "it runs in the host's PID namespace"
ok "and says it is in a container: $(jq -r .host.observer.container "$T/f4.json")" \
	test "$(jq -r .host.observer.container "$T/f4.json")" != none
is "$(jq -r '.host.observer.cannot_see | length' "$T/f4.json")" 0 "it says it saw everything"
ok "it sees the throttled container and names it" test "$(jq -r --arg n "runc $HOG" \
	'[.findings[] | select(.check == "use.cgroup-saturation") | .culprits[0].container.label][0]' "$T/f4.json")" = "runc $HOG"

RUNC_BINDS="$TOP:$TOP $T/out5:/out:rw" runc_bundle "$T/in2" "sonde-in2-$$" -- \
	"$TOP/$(basename "$SONDE")" run --window 2 --interval 1 --no-progress --out /out --json \
	--check use.cgroup-saturation --check workload.container-who
(cd "$T/in2" && runc run "sonde-in2-$$" >"$T/f5.json" 2>"$T/e5" </dev/null)
is "$?" 0 "sonde in a container with runc's defaults: exit 0"
is "$(jq -r .host.observer.pid_namespace "$T/f5.json")" own "its own PID namespace"
see=$(jq -r '.host.observer.cannot_see | join("\n")' "$T/f5.json")
ok "it says it saw its container's processes only" grep -q "it saw the processes of its container only" <<<"$see"
ok "it says no BPF tool could load (runc's default capabilities)" grep -q "no BPF tool could load" <<<"$see"
done_testing
