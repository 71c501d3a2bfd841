#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The overhead guard trips: a pipe ping-pong between two processes makes
# hundreds of thousands of context switches a second, each one a run of
# runqlat's sched_switch program, so runqlat costs about 1-2% of this host's
# CPU. With a budget of 0.2% the guard detaches it within the window, keeps
# what it gathered, and the capture and the report say so; with the guard off
# (--max-overhead 0) it runs to the end.
. tests/lib/tap.sh

for tool in jq perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root to load BPF programs"
why=$("$SONDE" list 2>/dev/null | awk '$1 == "bpf.runqlat" { $1 = ""; print }')
case "$why" in *yes*) ;; *) skip_all "runqlat cannot run here:$why" ;; esac

T=$(mktemp -d /tmp/sonde-safety-guard.XXXXXX)
PP=
DD=
cleanup() {
	[ -n "$DD" ] && kill "$DD" 2>/dev/null
	[ -n "$PP" ] && pkill -P "$PP" 2>/dev/null
	[ -n "$PP" ] && kill "$PP" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

perl -e '$0 = "pingpong";
	pipe(my $ar, my $aw); pipe(my $br, my $bw);
	my $b;
	if (fork()) { while (1) { syswrite($aw, "x"); sysread($br, $b, 1) } }
	else { while (1) { sysread($ar, $b, 1); syswrite($bw, "y") } }' &
PP=$!
sleep 0.5

"$SONDE" run --window 3 --interval 0.5 --max-overhead 0.2 --check use.cpu-saturation \
	--out "$T" --no-progress --json >"$T/on.json" 2>"$T/on.err"
ok "guarded run exits 0" test $? -eq 0
stopped=$(jq -r '.tools[] | select(.name == "runqlat") | .stopped_early // ""' "$T/on.json")
diag "stopped_early: $stopped"
case "$stopped" in
*"by the overhead guard"*) ok "runqlat detached by the overhead guard" true ;;
*) ok "runqlat detached by the overhead guard" false ;;
esac
ok "the terminal said so" grep -q "overhead guard: runqlat" "$T/on.err"
ok "what it gathered before is kept (waits counted)" \
	sh -c "jq -e '.checks[] | select(.id == \"use.cpu-saturation\") | .metrics[] | select(.name == \"runq_p99_ms\")' '$T/on.json' >/dev/null"
B=$(ls "$T"/sonde-*.tar.xz | head -1)
ok "the report's appendix says it" sh -c "tar -xJOf '$B' report.md | grep -q 'overhead guard'"
to=$(tar -xJOf "$B" raw/bpf/runqlat.json | jq .traced_to_s)
ok "traced only part of the window (traced_to_s $to < 2.9)" awk -v t="$to" 'BEGIN { exit !(t < 2.9) }'
rm -f "$T"/sonde-*.tar.xz

"$SONDE" run --window 2 --interval 0.5 --max-overhead 0 --check use.cpu-saturation \
	--out "$T" --no-progress --json >"$T/off.json" 2>/dev/null
is "$(jq -r '.tools[] | select(.name == "runqlat") | .stopped_early // "ran to the end"' "$T/off.json")" \
	"ran to the end" "--max-overhead 0: no guard, runqlat runs to the end"

# The default budget (2%): syscount on a host where dd copies one byte per
# read and write (two syscalls a byte, about a million a second here) costs
# far more than 2% of the CPU, and the guard detaches it.
why=$("$SONDE" list 2>/dev/null | awk '$1 == "bpf.syscount" { $1 = ""; print }')
case "$why" in
*yes*)
	dd if=/dev/zero of=/dev/null bs=1 count=100M 2>/dev/null &
	DD=$!
	sleep 0.3
	"$SONDE" run --window 3 --interval 0.5 --check workload.syscall-what --out "$T" \
		--no-progress --json >"$T/dd.json" 2>/dev/null
	kill "$DD" 2>/dev/null
	stopped=$(jq -r '.tools[] | select(.name == "syscount") | .stopped_early // ""' "$T/dd.json")
	diag "syscount: $stopped"
	case "$stopped" in
	*"by the overhead guard"*"--max-overhead 2%"*) ok "default budget: syscount under a syscall storm is detached" true ;;
	*) ok "default budget: syscount under a syscall storm is detached" false ;;
	esac
	;;
*) skip "default budget with syscount" "syscount cannot run here:$why" ;;
esac

done_testing
