#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# What sonde does on a host that lacks a feature (issue 31, docs/portability.md):
# each feature is taken away here, in a private mount namespace or for the
# one process, and `sonde run --window 2` must still write a bundle that
# `sonde verify` accepts, end no check in error, and name in its known
# unknowns what was lost and why (with what the user can do):
#   no BTF       an empty file bind-mounted over /sys/kernel/btf/vmlinux: the
#                CO-RE tools are skipped, the profile runs (built without CO-RE)
#   no BPF       bpf() refused by a seccomp filter (tests/lib/seccomp-deny.c),
#                as a container runtime's default profile refuses it
#   unprivileged uid 65534 with kernel.perf_event_paranoid 3 (set, and
#                restored whatever happens)
#   no perf      perf_event_open() refused by a seccomp filter, as root
#   no PSI       a tmpfs over /proc/pressure
#   cgroup v1    the v2 mount removed (this VM mounts both)
#   cgroup v2    the v1 hierarchies removed and cgroup2 alone on /sys/fs/cgroup,
#                with a child cgroup holding a process (this VM's v2 has no
#                controller: the v1 hierarchies keep them)
# Needs root, unshare, setpriv and a C compiler; skips with the reason otherwise.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root (mount namespaces, seccomp, another uid)"
for tool in unshare setpriv jq cc; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -e /sys/kernel/btf/vmlinux ] || skip_all "this kernel has no BTF to take away"

T=$(mktemp -d /var/tmp/sonde-fallbacks.XXXXXX)
chmod 0755 "$T"
PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid)
CG=""
tap_cleanup_extra() {
	echo "$PARANOID" >/proc/sys/kernel/perf_event_paranoid
	if [ -n "$CG" ]; then
		[ -n "$SLEEPER" ] && kill "$SLEEPER" 2>/dev/null && wait "$SLEEPER" 2>/dev/null
		rmdir "$CG" 2>/dev/null
	fi
}
tap_kill_at_exit

cc -O2 -Wall -o "$T/seccomp-deny" tests/lib/seccomp-deny.c 2>"$T/cc.err" ||
	skip_all "tests/lib/seccomp-deny.c does not build: $(head -1 "$T/cc.err")"

# degraded NAME SETUP [PREFIX...]: sonde run --window 2 --json in a private
# mount namespace after the shell lines SETUP, through PREFIX (seccomp-deny,
# setpriv); findings.json in $T/NAME.json, the bundle in $T/NAME/.
degraded() {
	local name=$1 setup=$2 b
	shift 2
	mkdir -p "$T/$name"
	[ "${1:-}" = setpriv ] && chown 65534:65534 "$T/$name"
	unshare -m --propagation private sh -c "$setup
		exec \"\$@\" '$SONDE' run --window 2 --out '$T/$name' --json --no-progress" sh "$@" \
		>"$T/$name.json" 2>"$T/$name.err"
	is "$?" 0 "$name: sonde run exits 0"
	b=$(ls "$T/$name"/sonde-*.tar.xz 2>/dev/null | head -1)
	ok "$name: a bundle is written" test -f "$b"
	"$SONDE" verify "$b" >"$T/$name.verify" 2>&1
	is "$?" 0 "$name: sonde verify accepts it"
	is "$(jq '[.checks[] | select(.status == "error")] | length' "$T/$name.json")" 0 \
		"$name: no check ended in error"
	# a status, not ok: the other engineers' tests may keep this host's CPUs busy
	ok "$name: /proc sampling still measures CPU utilization" \
		test "$(jq '[.checks[] | select(.id == "use.cpu-utilization") | .metrics[] |
			select(.value | type == "number")] | length' "$T/$name.json")" -gt 0
	# the terminal summary, where the unknowns are grouped with what to do
	"$SONDE" analyze "$b" --color never >"$T/$name.summary" 2>&1
}

# unknown NAME CHECK METRIC TEXT: CHECK's METRIC is a known unknown whose reason has TEXT.
unknown() {
	local r
	r=$(jq -r --arg c "$2" --arg m "$3" \
		'.unknowns[] | select(.check == $c and .metric == $m) | .reason' "$T/$1.json")
	ok "$1: $2 $3 is unknown: ...$4..." grep -qF -- "$4" <<<"$r"
	[ -n "$r" ] && ! grep -qF -- "$4" <<<"$r" && diag "reason: $r"
}

# tool_reason NAME TOOL TEXT: the tool did not run, and findings.json says why.
tool_reason() {
	local r
	r=$(jq -r --arg t "$2" '.tools[] | select(.name == $t) | "\(.status): \(.reason)"' \
		"$T/$1.json")
	ok "$1: $2 did not run, and says why: ...$3..." grep -qF -- "$3" <<<"$r"
	[ -n "$r" ] && ! grep -qF -- "$3" <<<"$r" && diag "tool: $r"
}

# The thread states' note (use.memory-waits), where the /proc fallback says what it lost.
states_note() {
	jq -r '.checks[] | select(.id == "use.memory-waits") | .evidence[] | select(.kind == "note")
		| .title' "$T/$1.json"
}

# ---- no BTF ----
: >"$T/empty"
degraded no-btf "mount --bind '$T/empty' /sys/kernel/btf/vmlinux"
tool_reason no-btf biolatency "this kernel has no BTF (/sys/kernel/btf/vmlinux is empty)"
tool_reason no-btf execsnoop "CONFIG_DEBUG_INFO_BTF (Linux 5.2+"
unknown no-btf use.disk-saturation service_p99_ms "this kernel has no BTF"
unknown no-btf workload.process-what execs_per_s "this kernel has no BTF"
is "$(jq -r '.tools[] | select(.name == "profile") | "\(.status) \(.attach)"' "$T/no-btf.json")" \
	"ok perf_event" "no-btf: the profile still runs (its build without CO-RE)"
ok "no-btf: ... and says it has no CFI stack copies without BTF" \
	sh -c "tar -xJOf '$(ls "$T"/no-btf/sonde-*.tar.xz 2>/dev/null | head -1)' raw/bpf/profile.json |
		jq -r .data.cfi.status | grep -q 'the kernel has no BTF'"
# unknown only where the host was idle (a quiet machine: nothing on a CPU to sample), never for BTF
ok "no-btf: the CPU profile's checks are not unknown (unless the CPUs were idle)" \
	test "$(jq '[.unknowns[] | select(.check == "workload.cpu-why") |
		select(.reason | test("the CPUs were idle") | not)] | length' "$T/no-btf.json")" = 0
ok "no-btf: the thread states came from /proc, and say why" \
	grep -q "thread states from /proc/PID/task (this kernel has no BTF" <<<"$(states_note no-btf)"
ok "no-btf: ... and what the /proc reading lost" \
	grep -q "not every thread each round" <<<"$(states_note no-btf)"

# ---- no BPF: bpf() refused by seccomp ----
degraded no-bpf ":" "$T/seccomp-deny" bpf
tool_reason no-bpf execsnoop "bpf() refused: a seccomp filter refuses bpf() to sonde"
tool_reason no-bpf profile "run sonde outside that container or unit"
unknown no-bpf use.memory-errors oom_kills_traced "a seccomp filter refuses bpf()"
unknown no-bpf workload.signal-who fatal_signals "a seccomp filter refuses bpf()"
ok "no-bpf: the thread states came from /proc, and say why" \
	grep -q "thread states from /proc/PID/task (bpf() refused: a seccomp filter" \
	<<<"$(states_note no-bpf)"
ok "no-bpf: the summary (sonde analyze) groups them, with what to do" \
	grep -q "refused by a policy: run sonde outside the container" "$T/no-bpf.summary"

# ---- unprivileged, perf_event_paranoid 3 ----
echo 3 >/proc/sys/kernel/perf_event_paranoid
degraded unprivileged ":" setpriv --reuid=65534 --regid=65534 --clear-groups
echo "$PARANOID" >/proc/sys/kernel/perf_event_paranoid
tool_reason unprivileged execsnoop "not permitted: sonde runs as uid 65534 without CAP_BPF"
unknown unprivileged workload.cpu-how context_switches_per_s "perf_event_paranoid is 3"
unknown unprivileged workload.cpu-how context_switches_per_s "needs CAP_PERFMON"
is "$(stat -c %U "$(ls "$T"/unprivileged/sonde-*.tar.xz | head -1)")" nobody \
	"unprivileged: the bundle is the running user's"

# ---- no perf_event: perf_event_open() refused by seccomp, as root ----
degraded no-perf ":" "$T/seccomp-deny" perf_event_open
tool_reason no-perf profile "a seccomp filter refuses perf_event_open() to sonde"
unknown no-perf workload.cpu-how context_switches_per_s "a seccomp filter refuses perf_event_open()"
is "$(jq -r '.tools[] | select(.name == "execsnoop") | .status' "$T/no-perf.json")" ok \
	"no-perf: the BPF tools that need no perf event still run"

# ---- no PSI ----
degraded no-psi "mount -t tmpfs none /proc/pressure"
unknown no-psi use.cpu-saturation psi_some_pct "/proc/pressure/cpu"
unknown no-psi use.memory-saturation psi_some_pct "Linux 4.20+ with CONFIG_PSI, booted with psi=1"
ok "no-psi: the summary (sonde analyze) says what to do" \
	grep -q "need PSI: Linux 4.20+ with CONFIG_PSI" "$T/no-psi.summary"

# ---- cgroup v1 only ----
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
V1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/self/mounts)
if [ -n "$V2" ] && [ -n "$V1" ]; then
	degraded cgroup-v1 "umount '$V2'"
	unknown cgroup-v1 use.cgroup-saturation memory_stall_pct "PSI per cgroup needs cgroup v2"
else
	skip "cgroup v1 only" "this host does not mount both cgroup v1 and v2 (v1: ${V1:-none}, v2: ${V2:-none})"
fi

# ---- cgroup v2 only ----
if [ -n "$V2" ]; then
	CG=$V2/sonde-fallbacks-$$
	mkdir "$CG"
	sleep 60 &
	SLEEPER=$!
	echo "$SLEEPER" >"$CG/cgroup.procs"
	degraded cgroup-v2 "umount -R /sys/fs/cgroup && mount -t cgroup2 none /sys/fs/cgroup"
	is "$(jq -r --arg c "/${CG##*/}" '.checks[] | select(.id == "use.cgroup-saturation") |
		.metrics[] | select(.name == "memory_stall_pct" and .instance == $c) | .value | type' \
		"$T/cgroup-v2.json")" number "cgroup-v2: the cgroup's memory stall from its own PSI"
	if ! grep -qw memory "$V2/cgroup.controllers"; then
		unknown cgroup-v2 use.cgroup-errors oom_kills "no cgroup with processes has the memory controller"
	else
		skip "cgroup v2 without the memory controller" "this host's v2 holds it"
	fi
else
	skip "cgroup v2 only" "no cgroup2 mount on this host"
fi

done_testing
