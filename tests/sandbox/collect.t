#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A check reads only what it declares: reading a capture whose collector is
# not in the check's collect list (through any ctx accessor, from the check or
# from a checks/lib helper it calls, even inside pcall) ends that check in
# status error with a message naming the check and the collector; the next
# check still runs, and a check that declares the collector reads it. Over a
# golden case's captures (sonde analyze), so nothing is read from this host.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"

B=tests/checks/all/idle
[ -d "$B/raw" ] || skip_all "no golden case at $B"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/checks
mkdir -p "$D/use" "$D/lib"

IDS=()
# check NAME COLLECT BODY: DIR/use/NAME.lua declaring collect = { COLLECT }
check() {
	IDS+=(--check "use.$1")
	cat >"$D/use/$1.lua" <<EOF
--- collect test: $1
local probe = require("probe")
return {
  id = "use.$1", title = "collect $1",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = { $2 },
  run = function(ctx, args)
    local _ = probe
$3
    ctx:metric("reached_end", 1)
  end,
}
EOF
}

# A lib helper reads on behalf of the check that calls it.
cat >"$D/lib/probe.lua" <<'EOF'
--- reads ctx.proc.loadavg() for its caller
local probe = {}
function probe.runnable(ctx)
  local la = ctx.proc.loadavg()
  return la and la:max("runnable")
end
return probe
EOF

# name | collect | body | collector the error must name
CASES=$(cat <<'EOF'
proc-stat||    ctx.proc.stat()|proc.stat
proc-stat-other|"proc.loadavg"|    ctx.proc.stat()|proc.stat
proc-stat-pcall||    pcall(ctx.proc.stat) ctx:metric("after_pcall", 1)|proc.stat
proc-stat-pcall-loop||    for _ = 1, 10 do pcall(function() return ctx.proc.stat() end) end|proc.stat
proc-tasks||    ctx.proc.tasks()|proc.pids
proc-task-series||    ctx.proc.task_series(1)|proc.pids
proc-pressure||    ctx.proc.pressure("cpu")|proc.pressure
proc-disks||    ctx.proc.disks()|proc.diskstats
proc-controllers-net|"proc.diskstats"|    ctx.proc.controllers("net")|proc.netdev
proc-filesystems||    ctx.proc.filesystems()|proc.mounts
proc-swaps||    ctx.proc.swaps()|proc.mounts
proc-cgroups||    ctx.proc.cgroups()|proc.cgroups
proc-kernel-log||    ctx.proc.kernel_log()|kernel.log
bpf-runqlat||    ctx.bpf.runqlat()|bpf.runqlat
bpf-tool|"bpf.runqlat"|    ctx.bpf.tool("biolatency")|bpf.biolatency
perf-counters||    ctx.perf.counters()|perf.counters
perf-counter||    ctx.perf.counter("cycles")|perf.counters
lib-loadavg||    probe.runnable(ctx)|proc.loadavg
EOF
)
while IFS='|' read -r name collect body _; do
	check "$name" "$collect" "$body"
done <<<"$CASES"

# Declared: each reads its capture (or gets nil, reason when it was not collected).
check ok-stat '"proc.stat"' '    local s = ctx.proc.stat(); ctx:metric("ncpu", s.ncpu)'
check ok-tasks '"proc.pids"' '    ctx:metric("tasks", #ctx.proc.tasks())'
check ok-lib '"proc.loadavg"' '    ctx:metric("runnable", probe.runnable(ctx))'
check ok-bpf '"bpf.runqlat"' '    local d, why = ctx.bpf.runqlat(); assert(d == nil and why)'
check ok-perf '"perf.counters"' '    local c, why = ctx.perf.counters(); assert(c == nil and why)'
check ok-controllers '"proc.diskstats", "proc.netdev"' \
	'    ctx.proc.controllers("disk"); ctx.proc.controllers("net")'
# Sorted after every failing check: the run goes on.
check zz-normal '' '    ctx:metric("normal", 2, { warn = 10 })'

"$SONDE" analyze "$B" --json --checks "$D" "${IDS[@]}" >"$T/findings.json" 2>"$T/stderr"
is "$?" 0 "analyze exits 0 whatever the checks do"
st() { jq -r --arg id "$1" '.checks[] | select(.id == $id) | .status' "$T/findings.json"; }
msg() { jq -r --arg id "$1" '.checks[] | select(.id == $id) | .error // ""' "$T/findings.json"; }
metric() {
	jq -r --arg id "$1" --arg m "$2" \
		'.checks[] | select(.id == $id) | .metrics[] | select(.name == $m) | .value' \
		"$T/findings.json"
}

while IFS='|' read -r name _ _ collector; do
	id=use.$name
	is "$(st "$id")" error "$id ends in status error"
	m=$(msg "$id")
	# ctx.proc.stat(), or ctx.proc where Lua cannot name the function (pcall(ctx.proc.stat))
	want="^$id reads ctx\.[a-z]+(\.[a-z_]+\(\))?, the capture of collector \"$collector\", which it does not declare: add \"$collector\" to its collect list$"
	if printf '%s' "$m" | grep -Eq -- "$want"; then
		ok "$id: the error names the check and $collector: $m" true
	else
		ok "$id: the error names the check and $collector (got '$m')" false
	fi
	is "$(metric "$id" reached_end)" "" "$id stopped where it read"
done <<<"$CASES"

is "$(metric use.proc-stat-pcall after_pcall)" "" "pcall does not catch the stop"
ok "the error names the accessor the check called" \
	grep -q 'reads ctx.proc.controllers()' <<<"$(msg use.proc-controllers-net)"
ok "a lib helper's read is named as the check's" \
	grep -q '^use.lib-loadavg reads ctx.proc.loadavg()' <<<"$(msg use.lib-loadavg)"

for id in ok-stat ok-tasks ok-lib ok-bpf ok-perf ok-controllers; do
	is "$(st "use.$id")" ok "use.$id, which declares what it reads, ends ok"
	is "$(metric "use.$id" reached_end)" 1 "use.$id ran to its end"
done
is "$(metric use.ok-stat ncpu)" "$(jq '.host.cpus' "$T/findings.json")" \
	"a declared read gives the capture (one series per CPU)"
is "$(st use.zz-normal)" ok "the check after them still runs"
is "$(metric use.zz-normal normal)" 2 "and reports its metric"

done_testing
