#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: syscount counts what our own loads do, and the checks name them.
# syscount hooks every syscall: it runs in drill-down windows, whose checks
# are selected here with --check, and --max-overhead 0 lets it trace the whole
# window whatever it costs, so the counts are exact.
#   - a dd under a distinctive name reads and writes 1 byte N times: its
#     syscalls, reads and writes are counted within a margin (its start-up
#     adds a few dozen), it is named by its new comm (exec refresh);
#   - a perl under a distinctive name opens /dev/null past `ulimit -n 16`: the
#     EMFILE failures it saw itself are attributed to it (drilldown.fd-who);
#   - a perl in a pids cgroup with pids.max=4 forks past it: EAGAIN from
#     clone, attributed to it (drilldown.task-who).
# Then a default run with a dd bs=1 beside: the first window names dd from
# /proc/PID/io, and the drill-down's syscount traces dd alone, filtered in the
# kernel, as far as its predicted cost fits the budget.
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
	--check drilldown.syscall-who --check drilldown.fd-who --check drilldown.task-who \
	--max-overhead 0 --set drilldown.syscall-who.warn_per_cpu=1 >"$T/findings.json" 2>"$T/stderr" &
SPID=$!

# The loads start once sonde holds its two syscall links (fd-owned: visible in
# its fds). The task iterator's links (link_type iter, held during a window's
# first round) are not counted: they come and go before the drill-down.
syscall_links() {
	local fd n=0
	for fd in /proc/"$1"/fd/*; do
		[[ $(readlink "$fd" 2>/dev/null) == *bpf_link* ]] || continue
		grep -Eq '^link_type:[[:space:]]+(raw_tracepoint|tracing|perf_event|kprobe_multi)$' \
			"/proc/$1/fdinfo/${fd##*/}" 2>/dev/null && n=$((n + 1))
	done
	echo "$n"
}
attached=0
for _ in $(seq 100); do
	n=$(syscall_links "$SPID")
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

# the culprit of drilldown.syscall-who: the process with the most syscalls
top_comm=$(jq -r '.data.processes[0].comm' "$S")
if [ "$top_comm" = "$DD" ]; then
	is "$(jq -r '.checks[] | select(.id == "drilldown.syscall-who") | .culprits[0].comm' "$F")" "$DD" \
		"drilldown.syscall-who names dd as the culprit"
else
	skip "culprit is dd" "another process on this shared host made more syscalls ($top_comm)"
	is "$(jq -r '.checks[] | select(.id == "drilldown.syscall-who") | .culprits[0].comm' "$F")" "$top_comm" \
		"drilldown.syscall-who names the process with the most syscalls"
fi
is "$(jq -r '.checks[] | select(.id == "drilldown.syscall-who") | .status' "$F")" warn \
	"drilldown.syscall-who warns over the threshold set to 1/s per CPU"

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
fdc=$(jq -r '.checks[] | select(.id == "drilldown.fd-who")' "$F")
ok "drilldown.fd-who counts at least its failures" jq_true --argjson n "${em_seen:-0}" \
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
	tkc=$(jq -r '.checks[] | select(.id == "drilldown.task-who")' "$F")
	ok "drilldown.task-who counts at least its failures" jq_true --argjson n "${FORKS:-0}" \
		'.metrics[] | select(.name == "fork_failures") | .value >= $n' <<<"$tkc"
fi

# sonde leaves itself out (other sondes on this shared host are counted: they are not it)
ok "sonde's own syscalls are not counted (pid $SONDE_PID)" jq_true --argjson p "$SONDE_PID" \
	'[.data.processes[] | select(.pid == $p)] | length == 0' "$S"

# ---- a default run: the first window names dd, the drill-down traces it alone ----
"$T/$DD" if=/dev/zero of=/dev/null bs=1 count=100G 2>/dev/null &
DDPID=$!
sleep 0.5
rm -rf "$T/out2" && mkdir "$T/out2"
"$SONDE" run --window 8 --out "$T/out2" --no-progress --json >"$T/f2.json" 2>"$T/stderr2"
rc=$?
kill "$DDPID" 2>/dev/null
wait "$DDPID" 2>/dev/null
is "$rc" 0 "a default run beside a dd bs=1 exits 0"
F2=$T/f2.json
is "$(jq -r '.checks[] | select(.id == "workload.syscall-what") | .culprits[0].pid' "$F2")" "$DDPID" \
	"the first window names dd from /proc/PID/io (no syscall traced)"
ok "the first window started no syscall tool" jq_true \
	'[.tools[] | select(.name == "syscount" or .name == "futexctn")] | length == 0' "$F2"
ok "the syscall drill-down fired" jq_true \
	'.drilldown.fired[] | select(.trigger == "workload.syscall-what")' "$F2"
sc=$(jq -c '.drilldown.tools[]? | select(.name == "syscount")' "$F2")
diag "drill-down syscount: $sc"
case $(jq -r .status <<<"$sc") in
ok)
	is "$(jq -r .filtered_to <<<"$sc")" "$DDPID" "syscount traced dd alone, filtered in the kernel"
	ok "within the budget: it traced part of the window (a duty cycle) or all of it" \
		jq_true '.duty <= 1' <<<"$sc"
	ok "the drill-down's syscall table names dd" jq_true --arg c "$DD" \
		'.checks[] | select(.id == "drilldown.syscall-who") | .culprits[0].comm == $c' "$F2"
	;;
over_budget)
	ok "not attached: the reason names its prediction and the evidence used instead" \
		jq_true '.reason | test("predicted cost") and test("/proc/PID/io")' <<<"$sc"
	;;
*) ok "syscount in the drill-down: ok or over_budget (got $(jq -r .status <<<"$sc"))" false ;;
esac
done_testing
