#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: syscount counts what our own loads do, and the checks name them.
#   - a dd under a distinctive name reads and writes 1 byte N times: its
#     syscalls, reads and writes are counted within a margin (its start-up
#     adds a few dozen), it is named by its new comm (exec refresh);
#   - a perl under a distinctive name opens /dev/null past `ulimit -n 16`: the
#     EMFILE failures it saw itself are attributed to it (use.fd-errors);
#   - a perl in a pids cgroup with pids.max=4 forks past it: EAGAIN from
#     clone, attributed to it (use.task-errors).
# The host is shared: we assert on our own processes and counts, never on quietness.
. tests/lib/tap.sh

N=300000
for tool in jq tar xz perl dd; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root to load BPF programs"
"$SONDE" list 2>/dev/null | grep -q '^bpf.syscount .* yes' ||
	skip_all "syscount cannot run here: $("$SONDE" list 2>&1 | grep '^bpf.syscount' | sed 's/  */ /g')"

T=$(mktemp -d /tmp/sonde-live-syscount.XXXXXX)
CG=/sys/fs/cgroup/pids/sonde-syscount-$$
SPID=
cleanup() {
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	wait 2>/dev/null
	if [ -d "$CG" ]; then
		for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
		sleep 0.2
		rmdir "$CG" 2>/dev/null
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Distinctive names (the comm is the executable's file name, 15 chars at most).
DD=scdd$$
EM=scemfile$$
FK=scfork$$
DD=${DD:0:15} EM=${EM:0:15} FK=${FK:0:15}
cp "$(command -v dd)" "$T/$DD"
cp "$(command -v perl)" "$T/$EM"
cp "$(command -v perl)" "$T/$FK"

mkdir "$T/out"
"$SONDE" run --window 6 --interval 1 --out "$T/out" --no-progress --json \
	--check workload.syscall-what --check use.fd-errors --check use.task-errors \
	--set workload.syscall-what.warn_per_cpu=1 >"$T/findings.json" 2>"$T/stderr" &
SPID=$!

# The loads start once sonde holds its two syscall links (fd-owned: visible in its fds).
attached=0
for _ in $(seq 100); do
	n=$(ls -l "/proc/$SPID/fd" 2>/dev/null | grep -c 'anon_inode:bpf_link')
	[ "${n:-0}" -ge 2 ] && attached=1 && break
	sleep 0.1
done
ok "sonde attached its syscall probes" test "$attached" -eq 1

# dd: N reads and N writes of one byte
"$T/$DD" if=/dev/zero of=/dev/null bs=1 count=$N 2>/dev/null &
DDPID=$!
# EMFILE: 200 opens with at most 16 descriptors; it reports the failures it saw
(ulimit -n 16; exec "$T/$EM" -MErrno -e '
	my ($n, @keep) = (0);
	for (1 .. 200) { if (open(my $f, "<", "/dev/null")) { push @keep, $f } elsif ($!{EMFILE}) { $n++ } }
	print "$n\n"; print STDERR "pid $$\n"' >"$T/emfile.out" 2>"$T/emfile.pid")
# EAGAIN from clone: in a pids cgroup that allows 4 tasks, 40 forks
FORKS=none
if mkdir "$CG" 2>/dev/null && echo 4 >"$CG/pids.max"; then
	sh -c "echo \$\$ > $CG/cgroup.procs && exec \"$T/$FK\" -MErrno -e '
		my \$n = 0; my @kids;
		for (1 .. 40) { my \$p = fork; if (!defined \$p) { \$n++ if \$!{EAGAIN} } elsif (\$p == 0) { sleep 2; exit 0 } else { push @kids, \$p } }
		print \"\$n\n\"; print STDERR \"pid \$\$\n\"; waitpid(\$_, 0) for @kids'" >"$T/fork.out" 2>"$T/fork.pid" &&
		FORKS=$(cat "$T/fork.out")
fi
wait "$DDPID"
wait "$SPID"
rc=$?
SONDE_PID=$SPID
SPID=
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"

B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
tar -xJf "$B" -C "$T" raw/bpf/syscount.json 2>/dev/null
S=$T/raw/bpf/syscount.json
F=$T/findings.json
jq_true() { jq -e "$@" >/dev/null 2>&1; }

is "$(jq -r .status "$S")" ok "syscount ran ($(jq -r '.attach // .reason' "$S"))"
jq -r '"# attach \(.attach), runs \(.runs), drops \(.drops), setup \(.setup_ms) ms"' "$S"

# dd: 2N syscalls plus its start-up (loader, locale, the shell's fork before exec)
dd_count=$(jq --arg c "$DD" '[.data.processes[] | select(.comm == $c) | .count] | add // 0' "$S")
diag "dd ($DD): $dd_count syscalls for $((2 * N)) reads and writes"
ok "dd's syscalls are counted under its own name: 2N <= $dd_count <= 2N + 300" \
	test "$dd_count" -ge $((2 * N)) -a "$dd_count" -le $((2 * N + 300))
reads=$(jq '[.data.by_syscall[] | select(.name == "read") | .count] | add // 0' "$S")
writes=$(jq '[.data.by_syscall[] | select(.name == "write") | .count] | add // 0' "$S")
ok "read and write each counted at least N times (read $reads, write $writes)" \
	test "$reads" -ge "$N" -a "$writes" -ge "$N"
ok "time in syscalls recorded for dd" jq_true --arg c "$DD" \
	'[.data.processes[] | select(.comm == $c) | .total_us] | add > 0' "$S"

# the culprit of workload.syscall-what: the process with the most syscalls
top_comm=$(jq -r '.data.processes[0].comm' "$S")
if [ "$top_comm" = "$DD" ]; then
	is "$(jq -r '.checks[] | select(.id == "workload.syscall-what") | .culprits[0].comm' "$F")" "$DD" \
		"workload.syscall-what names dd as the culprit"
else
	skip "culprit is dd" "another process on this shared host made more syscalls ($top_comm)"
	is "$(jq -r '.checks[] | select(.id == "workload.syscall-what") | .culprits[0].comm' "$F")" "$top_comm" \
		"workload.syscall-what names the process with the most syscalls"
fi
is "$(jq -r '.checks[] | select(.id == "workload.syscall-what") | .status' "$F")" warn \
	"workload.syscall-what warns over the threshold set to 1/s per CPU"

# EMFILE: exactly what the process itself saw
em_seen=$(cat "$T/emfile.out")
em_pid=$(sed -n 's/^pid //p' "$T/emfile.pid")
em_count=$(jq --argjson p "${em_pid:-0}" \
	'[.data.process_errors[] | select(.pid == $p and .errno_name == "EMFILE") | .count] | add // 0' "$S")
diag "EMFILE: the process saw $em_seen, syscount counted $em_count"
ok "the EMFILE load saw failures" test "${em_seen:-0}" -ge 150
is "$em_count" "$em_seen" "syscount attributes every EMFILE failure to the process (pid $em_pid)"
is "$(jq -r --argjson p "${em_pid:-0}" '.data.process_errors[] | select(.pid == $p) | .comm' "$S" | sort -u)" \
	"$EM" "under its name"
fdc=$(jq -r '.checks[] | select(.id == "use.fd-errors")' "$F")
is "$(jq -r .status <<<"$fdc")" warn "use.fd-errors warns"
is "$(jq -r '.culprits[0].comm' <<<"$fdc")" "$EM" "use.fd-errors names the EMFILE process first"
ok "use.fd-errors counts at least its failures" jq_true --argjson n "${em_seen:-0}" \
	'.metrics[] | select(.name == "emfile_enfile_errors") | .value >= $n' <<<"$fdc"

# EAGAIN from clone in the pids cgroup
if [ "$FORKS" = none ]; then
	skip "fork failures" "cannot make a pids cgroup at $CG (cgroup v1 pids controller)"
else
	fk_pid=$(sed -n 's/^pid //p' "$T/fork.pid")
	fk_count=$(jq --argjson p "${fk_pid:-0}" \
		'[.data.process_errors[] | select(.pid == $p and .errno_name == "EAGAIN" and (.name == "clone" or .name == "clone3" or .name == "fork")) | .count] | add // 0' "$S")
	diag "fork EAGAIN: the process saw $FORKS, syscount counted $fk_count"
	ok "the fork load failed some forks" test "${FORKS:-0}" -ge 30
	is "$fk_count" "$FORKS" "syscount attributes every failed fork to the process (pid $fk_pid)"
	tkc=$(jq -r '.checks[] | select(.id == "use.task-errors")' "$F")
	is "$(jq -r .status <<<"$tkc")" warn "use.task-errors warns"
	is "$(jq -r '.culprits[0].comm' <<<"$tkc")" "$FK" "use.task-errors names the forking process"
fi

# sonde leaves itself out (other sondes on this shared host are counted: they are not it)
ok "sonde's own syscalls are not counted (pid $SONDE_PID)" jq_true --argjson p "$SONDE_PID" \
	'[.data.processes[] | select(.pid == $p)] | length == 0' "$S"
done_testing
