#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: runqlat sees threads wait for a CPU. Four busy loops with a
# distinctive name share CPU 1 (pinned), so each is runnable but waiting about
# three quarters of the time, in waits of a scheduler slice (milliseconds).
# The capture must hold histogram mass in the millisecond slots, the hogs among
# the threads that waited longest, and drilldown.cpu-why (which reads runqlat:
# it hooks every context switch, so it runs in drill-down windows, selected
# here with --check) must report the p99; its predicted cost fits the budget
# (four hogs switch a few thousand times a second).
# Also: --no-bpf leaves runqlat out with the reason, and the run still completes.
. tests/lib/tap.sh

for tool in jq taskset perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root to load BPF programs"
why=$("$SONDE" list 2>/dev/null | awk '$1 == "bpf.runqlat" { $1 = ""; print }')
case "$why" in *yes*) ;; *) skip_all "runqlat cannot run here:$why" ;; esac
taskset -c 1 true 2>/dev/null || skip_all "cannot pin to CPU 1"

T=$(mktemp -d /tmp/sonde-live-runqlat.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for i in 1 2 3 4; do
	taskset -c 1 perl -e '$0 = "rqhog"; 1 while 1' &
	PIDS+=($!)
done
sleep 0.5

"$SONDE" run --window 3 --check drilldown.cpu-why --out "$T" --no-progress --json >"$T/f.json" 2>"$T/err"
ok "sonde run exits 0" test $? -eq 0
B=$(ls "$T"/sonde-*.tar.xz 2>/dev/null | head -1)
mkdir "$T/x" && tar -xJf "$B" -C "$T/x" raw/bpf/runqlat.json 2>/dev/null
J="$T/x/raw/bpf/runqlat.json"
ok "the bundle holds raw/bpf/runqlat.json" test -s "$J"
is "$(jq -r .status "$J")" ok "runqlat ran"
diag "attach: $(jq -r .attach "$J"), runs $(jq -r .runs "$J"), drops $(jq -r .drops "$J")"
# slots 10+ are [1024 us, ...): waits of a millisecond or more
ms=$(jq '[.data.hist | to_entries[] | select(.key >= 10) | .value] | add // 0' "$J")
total=$(jq '.data.count' "$J")
diag "waits: $total, of which $ms of 1 ms or more"
ok "hundreds of waits of 1 ms or more (four hogs on one CPU)" test "${ms:-0}" -ge 100
hogs=$(jq '[.data.tasks[:10][] | select(.comm == "rqhog")] | length' "$J")
is "$hogs" 4 "the four hogs are among the ten threads that waited longest"
hog_wait=$(jq '[.data.tasks[] | select(.comm == "rqhog") | .total_us] | add / 1e6' "$J")
diag "the hogs waited $hog_wait s in all over a 3 s window"
ok "the hogs waited at least 4 s in all (each ~3/4 of 3 s)" \
	awk -v w="$hog_wait" 'BEGIN { exit !(w >= 4) }'
p99=$(jq '.checks[] | select(.id == "drilldown.cpu-why") | .metrics[] | select(.name == "runq_p99_ms") | .value' "$T/f.json")
diag "drilldown.cpu-why runq_p99_ms = $p99"
ok "drilldown.cpu-why reports a run-queue p99 of 1 ms or more" \
	awk -v p="$p99" 'BEGIN { exit !(p != "" && p >= 1) }'
ok "the appendix lists the tool" \
	sh -c "jq -e '.tools[] | select(.name == \"runqlat\" and .status == \"ok\")' '$T/f.json' >/dev/null"
pct=$(jq '.tools[] | select(.name == "runqlat") | .predicted_cpu_pct' "$T/f.json")
ok "its cost was predicted and fit the default budget ($pct% of the host's CPU)" \
	awk -v p="$pct" 'BEGIN { exit !(p != "" && p >= 0 && p < 2) }'
ok "the first window's use.cpu-saturation does not start runqlat" \
	sh -c "'$SONDE' list 2>/dev/null | awk '\$1 == \"use.cpu-saturation\"' | grep -qv tracing"

"$SONDE" run --window 1 --no-bpf --check drilldown.cpu-why --out "$T" --no-progress --json >"$T/n.json" 2>/dev/null
ok "--no-bpf: the run completes" test $? -eq 0
is "$(jq -r '.unknowns[] | select(.check == "drilldown.cpu-why" and .metric == "runq_p99_ms") | .reason' "$T/n.json")" \
	"BPF tool runqlat did not run: BPF tools disabled (--no-bpf)" "--no-bpf: runq_p99_ms is a known unknown with the reason"

# Not root: the tool is unavailable with the reason in words, and the run completes.
if id nobody >/dev/null 2>&1 && command -v su >/dev/null; then
	mkdir "$T/u" && chmod 1777 "$T/u" && chmod 755 "$T"
	su nobody -s /bin/bash -c "cd /tmp && '$SONDE' run --window 1 --check drilldown.cpu-why --out '$T/u' --no-progress --json" >"$T/u.json" 2>/dev/null
	ok "unprivileged: the run completes" test $? -eq 0
	r=$(jq -r '.tools[] | select(.name == "runqlat") | .status + ": " + .reason' "$T/u.json")
	diag "$r"
	case "$r" in
	"unavailable: not permitted: sonde runs as uid "*" without CAP_BPF and CAP_PERFMON"*) ok "unprivileged: runqlat unavailable, reason given" true ;;
	*) ok "unprivileged: runqlat unavailable, reason given (got '$r')" false ;;
	esac
else
	skip "unprivileged run" "no user nobody or no su"
fi

done_testing
