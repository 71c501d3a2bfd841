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
#      Each one alone is many times its admission and over the budget: the
#      first cut does not save the other (offcputime duty-cycled: the room its
#      burst was planned with goes with it, it is no other tool's).
#   3. --max-overhead 0: neither the model nor the guard; the tools run to the end.
#   4. The default budget (2%): syscount under a syscall storm (dd bs=1) is not
#      attached for the whole window.
#   5. sonde's own sampling over the budget (5,000 processes, bench/spawn_procs.c):
#      its share is reserved before the tools are admitted, and the guard judges a
#      tool by its own cost against what it was admitted for, so a tool within its
#      admission is not detached for sonde's bookkeeping (issue 32, item 4).
#   6. A drill-down whose every tool is over the budget says so in the verdict's
#      "next" line, with the command that runs it by hand.
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
POP=
LOAD=
# The population: its group by SIGKILL (it ignores nothing that kills), and by its
# binary's path, unique to this run, should the group be missed: cleanup's `wait`
# must never wait on 5,000 processes left alive.
kill_pop() {
	[ -n "$POP" ] && kill -KILL -- -"$POP" 2>/dev/null
	[ -n "$T" ] && pkill -KILL -f "^$T/spawn " 2>/dev/null
	POP=
}
cleanup() {
	[ -n "$SP" ] && kill "$SP" 2>/dev/null
	[ -n "$DD" ] && kill "$DD" 2>/dev/null
	kill_pop
	[ -n "$LOAD" ] && kill $LOAD 2>/dev/null
	[ -n "$PP" ] && pkill -P "$PP" 2>/dev/null
	[ -n "$PP" ] && kill "$PP" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# A ping-pong; with an argument, it sleeps that many seconds every round trip
# (a steady few thousand switches a second instead of hundreds of thousands).
pingpong() {
	perl -e '$0 = "pingpong"; my $nap = shift;
		pipe(my $ar, my $aw); pipe(my $br, my $bw);
		my $b;
		if (fork()) { while (1) { syswrite($aw, "x"); sysread($br, $b, 1);
			select(undef, undef, undef, $nap) if $nap } }
		else { while (1) { sysread($ar, $b, 1); syswrite($bw, "y") } }' "${1:-0}" &
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

jqok() { jq -e "$@" >/dev/null; }

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
# The budget must admit both tools before the load starts, and be small enough
# that runqlat alone under the ping-pong (1.5-2.7% of this host) is over it.
# The model admits a tool by the larger of its share of the host and its share
# of the work it traces (predicted_load_pct: offcputime's 0.6-2.7% here, as the
# host's busy CPUs vary), cheapest first, offcputime last; a tool that does not
# fit whole traces a burst at the window's start, at least 0.25 s of the 4 s.
# A probe run (no load, a budget that admits everything) gives the others' and
# sonde's reserve; the budget is twice that, and room for offcputime's shortest
# burst at its costliest (0.0625 x 3%), 0.8% at least. A fixed 0.5% left
# offcputime out whenever the others took 0.4% of it.
"$SONDE" run --window 2 --interval 0.5 --max-overhead 50 --check drilldown.cpu-why \
	--check workload.process-why --no-drilldown --out "$T" --no-progress --json \
	>"$T/probe2.json" 2>/dev/null
rm -f "$T"/sonde-*.tar.xz
G=$(jq -r '([.tools[] | select(.name != "offcputime") |
		[.predicted_cpu_pct // 0, .predicted_load_pct // 0] | max] | add // 0) as $o |
	(.budget.reserved_pct // 0) as $r | [0.8, 2 * ($o + $r) + 0.2] | max' \
	"$T/probe2.json" 2>/dev/null)
case "$G" in ''|null) G=0.8 ;; esac
diag "guard budget: --max-overhead $G (the probe: $(jq -c '[.tools[] | {name, predicted_cpu_pct}], .budget.reserved_pct' "$T/probe2.json" 2>/dev/null | tr '\n' ' '))"
"$SONDE" run --window 4 --interval 0.5 --max-overhead "$G" --check drilldown.cpu-why \
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
	# The premise, offcputime attached when the load starts, may not hold: the
	# host's context switches in this run may predict it over what is left
	# (not attached), or duty-cycle it, its planned burst ending before the
	# guard's period comes ("as planned"). Then there is nothing for the guard
	# to cut: said, not failed (both seen in fresh-clone runs).
	off_planned=
	if jqok '.tools[] | select(.name == "offcputime") | .status != "ok"' "$T/guard.json"; then
		off_planned="not attached: $(tool "$T/guard.json" offcputime '.reason // .status')"
	elif jqok '.tools[] | select(.name == "offcputime") | .stopped_early | test("as planned")' \
		"$T/guard.json"; then
		off_planned="its duty cycle ended first: $(tool "$T/guard.json" offcputime '.stopped_early')"
	fi
	if [ -z "$off_planned" ]; then
		ok "offcputime detached by the overhead guard" \
			sh -c "jq -e '.tools[] | select(.name == \"offcputime\") | .stopped_early | test(\"by the overhead guard\")' '$T/guard.json' >/dev/null"
	else
		skip "offcputime detached by the overhead guard" "$off_planned"
	fi
	ok "the terminal said so" grep -q "overhead guard: runqlat" "$T/guard.err"
	B=$(ls "$T"/sonde-*.tar.xz | head -1)
	a=$(tar -xJOf "$B" raw/bpf/runqlat.json | jq .traced_to_s)
	b=$(tar -xJOf "$B" raw/bpf/offcputime.json | jq .traced_to_s)
	if [ -z "$off_planned" ]; then
		ok "both at once: in the same 0.1 s period (traced to $a and $b s)" \
			awk -v a="$a" -v b="$b" 'BEGIN { if (a == "" || b == "" || a == "null" || b == "null") exit 1
				d = a - b; if (d < 0) d = -d; exit !(d < 0.1) }'
	else
		skip "both at once: in the same 0.1 s period" "$off_planned"
	fi
	ok "within a second of the load starting (traced to $a s of a 4 s window)" \
		awk -v a="$a" 'BEGIN { exit !(a < 1.5) }'
	dms=$(tar -xJOf "$B" raw/bpf/runqlat.json | jq '.detach_ms // 1000')
	ok "detaching runqlat's links took under 100 ms ($dms ms)" awk -v d="$dms" 'BEGIN { exit !(d < 100) }'
	ok "what it gathered before is kept (its data is in the capture)" \
		sh -c "tar -xJOf '$B' raw/bpf/runqlat.json | jq -e '.data.hist | length > 0' >/dev/null"
	# whose cost it was: sonde's parts, and each tool against what it was admitted for
	diag "runqlat stopped: $(tool "$T/guard.json" runqlat '.stopped // "no stopped record" | tostring')"
	ok "findings.json tools[].stopped: the guard, and this tool over its admission" \
		jqok '.tools[] | select(.name == "runqlat") | .stopped |
			.by == "overhead_guard" and .pct > .admitted_pct and .spend_pct > .capacity_pct' \
		"$T/guard.json"
	ok "findings.json tools[].stopped.own: sonde's rounds, sampler and stack pollers apart" \
		jqok '.tools[] | select(.name == "runqlat") | .stopped.own |
			has("rounds_pct") and has("sampler_pct") and has("pollers_pct") and
			has("rest_pct") and has("reserved_pct")' "$T/guard.json"
	if [ -z "$off_planned" ]; then
		ok "findings.json tools[].stopped.tools: each tool's cost and admission" \
			jqok '[.tools[] | select(.name == "offcputime") | .stopped.tools[] |
				select(has("pct") and has("admitted_pct")) | .name] |
				index("runqlat") != null and index("offcputime") != null' "$T/guard.json"
	else
		ok "findings.json tools[].stopped.tools: each tool's cost and admission (runqlat's record)" \
			jqok '[.tools[] | select(.name == "runqlat") | .stopped.tools[] |
				select(has("pct") and has("admitted_pct")) | .name] |
				index("runqlat") != null and index("offcputime") != null' "$T/guard.json"
	fi
	ok "the appendix's row says whose cost it was" \
		sh -c "tar -xJOf '$B' report.md | grep '^| runqlat ' | grep 'Whose: ' | grep -q 'sampling rounds'"
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

# ---- 5. sonde's own sampling over the budget: a tool within its admission stays ----
# 5,000 processes make sonde's own sampling the costly part: each round reads them
# all, the first (every command line) several times a later one, so sonde's first
# second costs two to three times its mean. A probe run measures both ends: what
# sonde reserves for itself and the tools' predicted cost (below: runqlat admitted
# whole), and sonde's costliest second with the tools' cost (above: over the
# budget). The budget is halfway. An 8 s window keeps them apart: on this 2-CPU VM
# 1.2-1.6% and 3.1-3.3% of the host; at 4 s, the reserve and the prediction alone
# varied from 1.8 to 2.5% between runs (the pass timed for the reserve, 9 to 13 ms,
# and the ping-pong's rate), too close to the top.
spawn_ok=
if cc -O2 -pthread -o "$T/spawn" bench/spawn_procs.c 2>"$T/cc.err"; then
	setsid "$T/spawn" 5000 >"$T/spawn.out" 2>&1 &
	for _ in $(seq 600); do
		grep -q '^ready' "$T/spawn.out" 2>/dev/null && break
		sleep 0.1
	done
	POP=$(ps -eo pgid=,args= | awk -v p="$T/spawn 5000" '{ g = $1; $1 = "" } substr($0, 2) == p { print g; exit }')
	grep -q '^ready' "$T/spawn.out" 2>/dev/null && [ -n "$POP" ] && spawn_ok=1
fi
if [ -n "$spawn_ok" ]; then
	pingpong 0.0002
	sleep 0.5
	SCALE=(--window 8 --interval 1 --check drilldown.cpu-who --check drilldown.cpu-why
		--out "$T" --no-progress --json)
	# A window cut short (a read of /proc that hung: another process's, not this
	# test's) has not sampled the population: run it again, once.
	scale_run() { # OUT --max-overhead
		for _ in 1 2; do
			"$SONDE" run "${SCALE[@]}" --max-overhead "$2" >"$T/$1.json" 2>"$T/$1.err"
			rc=$?
			jq -e '.window.partial' "$T/$1.json" >/dev/null 2>&1 || return "$rc"
			diag "$1: $(jq -r .window.stop_reason "$T/$1.json"); again"
			rm -f "$T"/sonde-*.tar.xz
		done
		return "$rc"
	}
	scale_run probe 50
	# a sonde that reserves nothing: its mean instead, its first second 2.5 times that;
	# the tools as admitted: their predicted share of the host (not of the work
	# they trace, predicted_load_pct) times 1.5
	budget=$(jq -r '.window.seconds as $w | .host.cpus as $c |
		(([.tools[] | .cpu_ns // 0] | add) / 1e9 / $w / $c * 100) as $tools |
		(1.5 * ([.tools[] | .predicted_cpu_pct // 0] | add)) as $predicted |
		(.cost.window_cpu_seconds / $w / $c * 100) as $mean |
		((.budget.reserved_pct // $mean) + $predicted) as $lo |
		((.budget.own.max_pct // (2.5 * $mean)) + $tools) as $hi |
		($lo + $hi) / 2' "$T/probe.json")
	diag "probe: sonde's own $(jq -c '.budget // {window_cpu_seconds: .cost.window_cpu_seconds}' "$T/probe.json"); runqlat predicted $(tool "$T/probe.json" runqlat '.predicted_cpu_pct')% of the host: --max-overhead $budget"
	rm -f "$T"/sonde-*.tar.xz
	scale_run own "$budget"
	ok "sonde's own sampling over the budget: the run exits 0" test $? -eq 0
	stop_pingpong
	kill_pop
	diag "runqlat: $(tool "$T/own.json" runqlat '"\(.status), duty \(.duty), \(.stopped_early // "ran to the end")"')"
	diag "budget: $(jq -c '.budget // "none"' "$T/own.json")"
	# The premise: runqlat admitted whole. The ping-pong's rate moves between the
	# probe and this run; a prediction now above the budget duty-cycles runqlat
	# by plan, and the rest cannot be judged: said, not failed.
	if jqok '.tools[] | select(.name == "runqlat") | .status == "ok" and .duty == 1' "$T/own.json"; then
		ok "runqlat was admitted for the whole window" true
		# the case of issue 32: sonde's own over its share, and with its tools over the budget
		ok "sonde's own CPU went over what it reserved, and with the tools' over the budget" \
			jqok '(([.tools[].cpu_ns // 0] | add) / 1e9 / .window.seconds / .host.cpus * 100) as $tools |
				.budget | .own.max_pct > .reserved_pct and
				.own.max_pct + $tools > .max_overhead_pct' "$T/own.json"
		ok "runqlat, within what it was admitted for, was not detached for it" \
			jqok '.tools[] | select(.name == "runqlat") | has("stopped_early") | not' "$T/own.json"
	else
		skip "runqlat admitted whole, sonde over its share, runqlat kept" \
			"runqlat's prediction in this run did not fit --max-overhead $budget: $(tool "$T/own.json" runqlat '"predicted \(.predicted_cpu_pct)% of the host, duty \(.duty)"')"
	fi
	ok "the guard detached no tool that stayed within its admission" \
		jqok '[.tools[] | .stopped // empty | select(.by == "overhead_guard") |
			select(.pct <= .admitted_pct)] | length == 0' "$T/own.json"
	B=$(ls "$T"/sonde-*.tar.xz | head -1)
	ok "the appendix says what sonde reserved for itself and used, by part" \
		sh -c "tar -xJOf '$B' report.md | grep '^Budget: --max-overhead' | grep -q 'sampling rounds'"
	rm -f "$T"/sonde-*.tar.xz
else
	skip "sonde's own sampling over the budget" "no population of 5,000 processes: $(head -c 200 "$T/cc.err" "$T/spawn.out" 2>/dev/null)"
fi

# ---- 6. a drill-down that admits nothing says so, with the command to run it by hand ----
# Four spinners saturate the CPUs (use.cpu-saturation: crit, the drill-down fires),
# a ping-pong makes runqlat costly: at --max-overhead 0.01 no tool of
# drilldown.cpu-why fits. The command it gives then runs with the load still there.
for _ in 1 2 3 4; do
	perl -e '$0 = "spinner"; 1 while 1' &
	LOAD="$LOAD $!"
done
pingpong
sleep 0.5
"$SONDE" run --window 4 --check use.cpu-saturation --max-overhead 0.01 --out "$T" --no-progress \
	--color never >"$T/drill.out" 2>"$T/drill.err"
rc=$?
B=$(ls "$T"/sonde-*.tar.xz 2>/dev/null | head -1)
tar -xJOf "$B" findings.json >"$T/drill.json" 2>/dev/null
diag "drill-down: $(jq -c '[.drilldown.tools[]? | "\(.name) \(.status)"]' "$T/drill.json")"
# The premise: no tool of the drill-down fits 0.01%. A tool predicted under it
# on this host's load (the profile on an idle CPU) is admitted by rule: said, not failed.
fit=$(jq -r '[.drilldown.tools[]? | select(.status == "ok") | .name] | join(" ")' "$T/drill.json" 2>/dev/null)
if [ -n "$fit" ]; then
	skip "a drill-down that admits nothing" "$fit fit the 0.01% budget on this host's load"
elif jq -e '.drilldown.fired | length > 0' "$T/drill.json" >/dev/null 2>&1; then
	ok "a drill-down that admits nothing: the run exits 0" test "$rc" -eq 0
	ok "every tool of the drill-down window was over the budget" \
		jqok '[.drilldown.tools[] | .status] | length > 0 and all(. == "over_budget")' "$T/drill.json"
	ok "findings.json drilldown.note says it admitted no tool, with the command" \
		jqok '.drilldown.note | test("admitted no BPF tool") and
			test("sonde run --check drilldown.cpu-why --max-overhead [0-9]")' "$T/drill.json"
	hand=$(jq -r '.drilldown.by_hand // ""' "$T/drill.json")
	diag "by hand: $hand"
	ok "the verdict's next line says so on the terminal" \
		grep -q "^Next: the drill-down window admitted no BPF tool.*sonde run --check drilldown.cpu-why --max-overhead" "$T/drill.out"
	ok "and in report.md, under the verdict" \
		sh -c "tar -xJOf '$B' report.md | grep -q '^Next: the drill-down window admitted no BPF tool'"
	rm -f "$T"/sonde-*.tar.xz
	# the command is one sonde takes, and its budget admits the tools under the same load
	if [ -n "$hand" ]; then
		read -r -a argv <<<"${hand#sonde }"
		"$SONDE" "${argv[@]}" --window 1 --out "$T" --no-progress --json >"$T/hand.json" 2>"$T/hand.err"
		rc=$?
		diag "by hand: $(jq -c '[.tools[] | "\(.name) \(.status) \(.duty)"]' "$T/hand.json" 2>/dev/null)"
		ok "the command by hand runs (exit $rc), and its budget admits every tool" \
			jqok '[.tools[] | .status == "ok"] | length > 0 and all' "$T/hand.json"
	else
		ok "the command by hand runs" false
	fi
else
	skip "a drill-down that admits nothing" "use.cpu-saturation did not fire on this host: $(head -3 "$T/drill.out")"
fi
stop_pingpong
kill $LOAD 2>/dev/null
wait $LOAD 2>/dev/null
LOAD=
rm -f "$T"/sonde-*.tar.xz

done_testing
