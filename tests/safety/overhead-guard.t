#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cost model and the overhead guard. A pipe ping-pong between two
# processes makes hundreds of thousands of context switches a second, each one
# a run of runqlat's and offcputime's sched_switch programs.
#   1. Load already there: the model predicts the tools' cost from /proc/stat
#      ctxt before attaching, and a budget they do not fit refuses them (the
#      capture and the report name the prediction and the evidence used instead).
#   2. Load that starts after the prediction: the guard, the safety net, sees
#      the tools cost more than predicted and detaches both at once, within a
#      few of its 0.1 s periods of the load starting, keeping what they gathered.
#   3. --max-overhead 0: neither the model nor the guard; the tools run to the end.
#   4. The default budget (2%): syscount under a syscall storm (dd bs=1) is not
#      attached for the whole window.
. tests/lib/tap.sh

for tool in jq perl awk; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root to load BPF programs"
for t in runqlat offcputime; do
	why=$("$SONDE" list 2>/dev/null | awk -v t="bpf.$t" '$1 == t { $1 = ""; print }')
	case "$why" in *yes*) ;; *) skip_all "$t cannot run here:$why" ;; esac
done

T=$(mktemp -d /tmp/sonde-safety-guard.XXXXXX)
PP=
DD=
SP=
cleanup() {
	[ -n "$SP" ] && kill "$SP" 2>/dev/null
	[ -n "$DD" ] && kill "$DD" 2>/dev/null
	[ -n "$PP" ] && pkill -P "$PP" 2>/dev/null
	[ -n "$PP" ] && kill "$PP" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pingpong() {
	perl -e '$0 = "pingpong";
		pipe(my $ar, my $aw); pipe(my $br, my $bw);
		my $b;
		if (fork()) { while (1) { syswrite($aw, "x"); sysread($br, $b, 1) } }
		else { while (1) { sysread($ar, $b, 1); syswrite($bw, "y") } }' &
	PP=$!
}
stop_pingpong() {
	pkill -P "$PP" 2>/dev/null
	kill "$PP" 2>/dev/null
	wait "$PP" 2>/dev/null
	PP=
}

# Wait until sonde (pid $1) has begun its window in --out $2: its tools are
# attached by then, and its captures appear in its staging directory.
wait_window() {
	for _ in $(seq 500); do
		compgen -G "$2/.sonde-run-*/raw/*.cap" >/dev/null && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.02
	done
	return 1
}

tool() { # FILE TOOL JQ
	jq -r --arg t "$2" ".tools[] | select(.name == \$t) | $3" "$1"
}

# ---- 1. load there before: refused by the prediction ----
pingpong
sleep 0.5
"$SONDE" run --window 2 --interval 0.5 --max-overhead 0.5 --check drilldown.cpu-why \
	--out "$T" --no-progress --json >"$T/pred.json" 2>"$T/pred.err"
ok "a budget the tools do not fit: the run still exits 0" test $? -eq 0
stop_pingpong
st=$(tool "$T/pred.json" runqlat '.status')
pct=$(tool "$T/pred.json" runqlat '.predicted_cpu_pct // 0')
diag "runqlat: $st, predicted $pct% of the host's CPU; $(tool "$T/pred.json" runqlat '.reason // .stopped_early // ""')"
ok "runqlat's cost was predicted above the 0.5% budget ($pct%)" awk -v p="$pct" 'BEGIN { exit !(p > 0.5) }'
case "$st" in
over_budget)
	ok "not attached: over_budget, and the reason names the prediction and the budget" \
		sh -c "jq -e '.tools[] | select(.name == \"runqlat\") | .reason | test(\"predicted cost\") and test(\"--max-overhead 0.5%\")' '$T/pred.json' >/dev/null"
	;;
ok)
	ok "attached for part of the window (a duty cycle)" \
		sh -c "jq -e '.tools[] | select(.name == \"runqlat\") | .duty < 1 and (.stopped_early | test(\"as planned\"))' '$T/pred.json' >/dev/null"
	;;
*) ok "runqlat refused or duty-cycled (status $st)" false ;;
esac
ok "the evidence used instead is named" \
	sh -c "jq -e '.tools[] | select(.name == \"runqlat\") | .instead | test(\"schedstat\")' '$T/pred.json' >/dev/null"
B=$(ls "$T"/sonde-*.tar.xz | head -1)
ok "the report's appendix says it" sh -c "tar -xJOf '$B' report.md | grep -q 'predicted'"
# Duty-cycled, runqlat traces part of the window: it may or may not see a
# thread wait in that part. Either the check has its figure from the part
# traced, or it says why it has none.
ok "the check has runqlat's figure from the part traced, or says why not" \
	sh -c "jq -e '([.checks[] | select(.id == \"drilldown.cpu-why\") | .metrics[] | select(.name == \"runq_p99_ms\")] | length > 0) or ([.unknowns[] | select(.check == \"drilldown.cpu-why\") | .reason | test(\"runqlat\")] | any)' '$T/pred.json' >/dev/null"
rm -f "$T"/sonde-*.tar.xz

# ---- 2. load after the prediction: the guard detaches both tools at once ----
"$SONDE" run --window 4 --interval 0.5 --max-overhead 0.5 --check drilldown.cpu-why \
	--check workload.process-why --out "$T" --no-progress --json >"$T/guard.json" 2>"$T/guard.err" &
SP=$!
if wait_window "$SP" "$T"; then
	t0=$(date +%s%N)
	pingpong
	wait "$SP"
	rc=$?
	SP=
	t1=$(date +%s%N)
	stop_pingpong
	ok "guarded run exits 0" test "$rc" -eq 0
	for t in runqlat offcputime; do
		diag "$t: $(tool "$T/guard.json" $t '.stopped_early // "ran to the end"')"
	done
	ok "runqlat detached by the overhead guard" \
		sh -c "jq -e '.tools[] | select(.name == \"runqlat\") | .stopped_early | test(\"by the overhead guard\")' '$T/guard.json' >/dev/null"
	ok "offcputime detached by the overhead guard" \
		sh -c "jq -e '.tools[] | select(.name == \"offcputime\") | .stopped_early | test(\"by the overhead guard\")' '$T/guard.json' >/dev/null"
	ok "the terminal said so" grep -q "overhead guard: runqlat" "$T/guard.err"
	B=$(ls "$T"/sonde-*.tar.xz | head -1)
	a=$(tar -xJOf "$B" raw/bpf/runqlat.json | jq .traced_to_s)
	b=$(tar -xJOf "$B" raw/bpf/offcputime.json | jq .traced_to_s)
	ok "both at once: in the same 0.1 s period (traced to $a and $b s)" \
		awk -v a="$a" -v b="$b" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d < 0.1) }'
	ok "within a second of the load starting (traced to $a s of a 4 s window)" \
		awk -v a="$a" 'BEGIN { exit !(a < 1.5) }'
	dms=$(tar -xJOf "$B" raw/bpf/runqlat.json | jq '.detach_ms // 1000')
	ok "detaching runqlat's links took under 100 ms ($dms ms)" awk -v d="$dms" 'BEGIN { exit !(d < 100) }'
	ok "what it gathered before is kept (its data is in the capture)" \
		sh -c "tar -xJOf '$B' raw/bpf/runqlat.json | jq -e '.data.hist | length > 0' >/dev/null"
	rm -f "$T"/sonde-*.tar.xz
else
	skip "the guard detaches both tools at once" "sonde did not attach its tools: $(tail -1 "$T/guard.err")"
fi

# ---- 3. --max-overhead 0: no model, no guard ----
pingpong
sleep 0.3
"$SONDE" run --window 2 --interval 0.5 --max-overhead 0 --check drilldown.cpu-why \
	--out "$T" --no-progress --json >"$T/off.json" 2>/dev/null
stop_pingpong
is "$(tool "$T/off.json" runqlat '"\(.status) \(.stopped_early // "ran to the end")"')" \
	"ok ran to the end" "--max-overhead 0: no budget, runqlat runs to the end"
rm -f "$T"/sonde-*.tar.xz

# ---- 4. the default budget: syscount under a syscall storm ----
why=$("$SONDE" list 2>/dev/null | awk '$1 == "bpf.syscount" { $1 = ""; print }')
case "$why" in
*yes*)
	dd if=/dev/zero of=/dev/null bs=1 count=100M 2>/dev/null &
	DD=$!
	sleep 0.3
	"$SONDE" run --window 3 --interval 0.5 --check drilldown.syscall-who --out "$T" \
		--no-progress --json >"$T/dd.json" 2>/dev/null
	kill "$DD" 2>/dev/null
	wait "$DD" 2>/dev/null
	DD=
	diag "syscount: $(tool "$T/dd.json" syscount '"\(.status), predicted \(.predicted_cpu_pct)%, duty \(.duty)"')"
	ok "default budget: syscount under a syscall storm does not trace the whole window" \
		sh -c "jq -e '.tools[] | select(.name == \"syscount\") | .status == \"over_budget\" or .duty < 1' '$T/dd.json' >/dev/null"
	;;
*) skip "default budget with syscount" "syscount cannot run here:$why" ;;
esac

done_testing
