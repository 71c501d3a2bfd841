#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde run where a container would run it (collect/observer.c,
# collect/analysis_observer.c): in the host's namespaces with every capability
# it says it saw the host and names nothing it could not see; in a new PID
# namespace (unshare --pid --mount-proc, as a container without hostPID) with
# CAP_SYS_ADMIN, CAP_BPF and CAP_PERFMON dropped (capsh), it says exactly
# what it could not see: the host's processes, the BPF tools, the counters;
# and the processes it names are its namespace's.
. tests/lib/tap.sh

for tool in jq unshare capsh; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps: util-linux, libcap2-bin)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a new PID namespace, capabilities to drop)"
unshare --pid --fork --mount-proc true 2>/dev/null ||
	skip_all "unshare cannot make a PID namespace here (a sandbox that forbids it)"

T=$(mktemp -d /tmp/sonde-observer.XXXXXX)
trap 'rm -rf "$T"' EXIT
CHECKS=(--check use.cgroup-utilization --check use.cpu-saturation --check workload.container-who)
obs() { jq -r ".host.observer.$1" "$2"; }

mkdir -p "$T/host" "$T/ns"
"$SONDE" run --window 1 --interval 1 --no-progress "${CHECKS[@]}" --out "$T/host" --json \
	>"$T/host.json" 2>"$T/host.err"
is "$?" 0 "on the host: exit 0"
is "$(obs pid_namespace "$T/host.json")" host "on the host: the host's PID namespace"
is "$(obs cgroup_namespace "$T/host.json")" host "and its cgroup namespace"
is "$(obs container "$T/host.json")" none "not in a container (the /.dockerenv of an image is no proof)"
is "$(obs 'cannot_see | length' "$T/host.json")" 0 "nothing it could not see"

unshare --pid --fork --mount-proc capsh --drop=cap_sys_admin,cap_bpf,cap_perfmon -- -c \
	"exec '$SONDE' run --window 1 --interval 1 --no-progress ${CHECKS[*]} --out '$T/ns' --json" \
	>"$T/ns.json" 2>"$T/ns.err"
is "$?" 0 "in a new PID namespace without CAP_SYS_ADMIN, CAP_BPF, CAP_PERFMON: exit 0"
sed 's/^/#   stderr: /' "$T/ns.err" | tail -3
is "$(obs pid_namespace "$T/ns.json")" own "its own PID namespace"
ok "in a container: $(obs container "$T/ns.json")" test "$(obs container "$T/ns.json")" != none
see=$(obs 'cannot_see | join("\n")' "$T/ns.json")
ok "it says it saw its container's processes only" grep -q "own PID namespace: it saw the processes of its container only" <<<"$see"
ok "it says no BPF tool could load" grep -q "without CAP_BPF (or CAP_SYS_ADMIN) no BPF tool could load" <<<"$see"
ok "it says the counters depend on perf_event_paranoid" grep -q "without CAP_PERFMON" <<<"$see"
ok "CAP_SYS_PTRACE kept: nothing said of it" test -z "$(grep SYS_PTRACE <<<"$see")"
ok "the report's Host section says it too" \
	sh -c "tar -xJOf \"\$(ls $T/ns/*.tar.xz)\" report.md | grep -q 'What sonde could not see: sonde ran in its own PID namespace'"
# the processes of the namespace: a handful, sonde itself pid 1 or 2 there
n=$(tar -xJOf "$(ls "$T"/ns/*.tar.xz)" raw/proc.pids.cap | grep -ac '^[@=] 0 .* /proc/[0-9]*/stat$')
ok "the first round saw only its namespace's processes ($n)" test "$n" -ge 1 -a "$n" -le 5
done_testing
