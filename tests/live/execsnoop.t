#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: execsnoop sees the short-lived processes /proc sampling misses. A shell
# script with a distinctive name (es-burst-parent) runs a burst of 500
# `/bin/true es-canary-N --password=hunter2` inside the window; each lives about
# a millisecond. The capture must count at least 90% of them under that parent,
# carry argv samples of them, and workload.process-what must name that parent as
# its first culprit. A second, shorter run with --redact must keep the samples
# but not the password, anywhere in the bundle (the first run shows it is there
# to remove). Other helpers' processes on a shared host only add to the counts:
# everything asserted is about our own parent's pid.
. tests/lib/tap.sh

BURST=500
for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ -x /bin/true ] || skip_all "no /bin/true"
line=$("$SONDE" list 2>&1 | grep '^bpf\.execsnoop ')
case "$line" in
*" yes ("*) ;;
*) skip_all "execsnoop cannot run here: ${line:-sonde list does not list bpf.execsnoop}" ;;
esac

T=$(mktemp -d /tmp/sonde-live-execsnoop.XXXXXX)
BURST_PID=
cleanup() {
	[ -n "$BURST_PID" ] && kill "$BURST_PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT

# The script's comm is its name cut to 15 bytes: es-burst-parent.
cat >"$T/es-burst-parent.sh" <<'EOF'
#!/bin/bash
# es-burst-parent.sh DELAY COUNT DONEFILE OUTDIR FIFO: DELAY s after sonde's
# window began (its first captures appear in OUTDIR's staging directory, the
# tools attached before), COUNT short-lived execs. It waits with builtins only
# (read -t on a FIFO nobody writes): its only execs are the burst's.
exec 9<>"$5"
for ((k = 0; k < 400; k++)); do
	compgen -G "$4/.sonde-run-*/raw/*.cap" >/dev/null && break
	read -r -t 0.05 -u 9
done
read -r -t "$1" -u 9
i=0
while [ "$i" -lt "$2" ]; do
	/bin/true "es-canary-$i" --password=hunter2
	i=$((i + 1))
done
echo "$i" >"$3"
EOF
chmod +x "$T/es-burst-parent.sh"

# jq_true [JQ-OPTIONS] FILTER FILE: FILTER is true on FILE
jq_true() {
	jq -e "$@" >/dev/null 2>&1
}

# run_burst NAME WINDOW COUNT SONDE-ARGS...: the burst starts 0.5 s into the window (a fixed
# delay after sonde started missed the window's start on a loaded host: set-up took longer)
run_burst() {
	local name=$1 window=$2 count=$3
	shift 3
	mkdir -p "$T/$name/out" "$T/$name/x"
	mkfifo "$T/$name/fifo"
	"$T/es-burst-parent.sh" 0.5 "$count" "$T/$name/done" "$T/$name/out" "$T/$name/fifo" &
	BURST_PID=$!
	echo "$BURST_PID" >"$T/$name/pid"
	"$SONDE" run --window "$window" --interval 1 --check workload.process-what --no-progress \
		--out "$T/$name/out" --json "$@" >"$T/$name/findings.json" 2>"$T/$name/stderr"
	echo $? >"$T/$name/rc"
	wait "$BURST_PID"
	BURST_PID=
	tar -xJf "$T/$name/out"/sonde-*.tar.xz -C "$T/$name/x" 2>/dev/null
}

# ---- run 1: counts, parent, samples, culprit ----
run_burst plain 6 "$BURST"
pid=$(cat "$T/plain/pid")
R=$T/plain/x/raw/bpf/execsnoop.json
is "$(cat "$T/plain/rc")" 0 "sonde run exits 0"
is "$(cat "$T/plain/done" 2>/dev/null)" "$BURST" "the burst ran all $BURST execs"
ok "raw/bpf/execsnoop.json is in the bundle" test -s "$R"
ok "execsnoop ran (status ok)" jq_true '.status == "ok"' "$R"
diag "attach $(jq -r .attach "$R"), runs $(jq -r .runs "$R"), drops $(jq -r .drops "$R"), traced $(jq -r '"\(.traced_from_s) .. \(.traced_to_s) s"' "$R")"
got=$(jq --argjson p "$pid" '[.data.parents[] | select(.ppid == $p) | .execs] | add // 0' "$R")
diag "execs under es-burst-parent (pid $pid): $got of $BURST; all execs $(jq .data.execs "$R")"
ok "at least 90% of the burst counted under its parent ($got of $BURST)" \
	test "$got" -ge $((BURST * 9 / 10))
ok "no more than the burst under its parent ($got <= $BURST)" test "$got" -le "$BURST"
ok "the parent's comm is es-burst-parent" \
	jq_true --argjson p "$pid" 'any(.data.parents[]; .ppid == $p and .comm == "es-burst-parent")' "$R"
ok "the parent forked at least as many processes as it execed" \
	jq_true --argjson p "$pid" 'any(.data.parents[]; .ppid == $p and .forks >= .execs)' "$R"
ok "command true counted at least 90% of the burst" \
	jq_true "any(.data.comms[]; .comm == \"true\" and .execs >= $((BURST * 9 / 10)))" "$R"
ok "at least 90% of the burst lived and died in the window (lifetime histogram)" \
	jq_true "(.data.lifetime.hist | add) >= $((BURST * 9 / 10)) and .data.lifetime.count == (.data.lifetime.hist | add)" "$R"
nsamp=$(jq --argjson p "$pid" '[.data.samples[] | select(.ppid == $p and (.args | startswith("/bin/true es-canary-")) and .pcomm == "es-burst-parent" and .comm == "true" and .filename == "/bin/true")] | length' "$R")
ok "argv samples of the burst are present ($nsamp)" test "$nsamp" -ge 1
ok "samples are bounded (<= 1024 + 2 per CPU of overshoot)" jq_true '(.data.samples | length) <= 1024 + 2 * 64' "$R"
ok "not every exec was sampled, and the rest were counted" \
	jq_true "(.data.samples | length) < .data.execs and .data.not_sampled > 0" "$R"
ok "the first run keeps the password in argv (what --redact must remove)" grep -q 'hunter2' "$R"
F=$T/plain/findings.json
first=$(jq -c '.checks[] | select(.id == "workload.process-what") | .culprits[0] | {pid, comm}' "$F")
is "$first" "{\"pid\":$pid,\"comm\":\"es-burst-parent\"}" "workload.process-what's first culprit is the burst's parent"
ok "execs_per_s is at least the burst's share of the window" \
	jq_true ".checks[] | select(.id == \"workload.process-what\") | any(.metrics[]; .name == \"execs_per_s\" and .value >= $((BURST * 9 / 10)) / 7)" "$F"

# ---- run 2: --redact removes the password from the argv samples ----
run_burst red 4 50 --redact
R=$T/red/x/raw/bpf/execsnoop.json
is "$(cat "$T/red/rc")" 0 "sonde run --redact exits 0"
ok "raw/bpf/execsnoop.json is in the redacted bundle" test -s "$R"
ok "its samples of the burst are still there" \
	jq_true 'any(.data.samples[]; .args | startswith("/bin/true es-canary-"))' "$R"
ok "raw/bpf/execsnoop.json has no hunter2" bash -c "! grep -q hunter2 '$R'"
ok "no file of the redacted bundle has hunter2" bash -c "! grep -rq hunter2 '$T/red/x'"
ok "nor does sonde's output" bash -c "! grep -q hunter2 '$T/red/findings.json' '$T/red/stderr'"

done_testing
