#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: memory running out. sondeleak grows its heap by 64 MiB a second: at
# that rate the host's available memory is gone in minutes (crit). sondecg,
# in a v1 memory cgroup limited to 512 MiB, grows 16 MiB a second from 128 MiB
# toward it (the cgroup is full in about half a minute). sonde must give both a
# time to exhaustion that matches what is left and the rate (within a factor of
# 2) and name each grower; the one running out first leads the verdict. Both
# stop long before they could hurt the host. The rates are the ones the test
# measures itself during the window (runout_rate), not the nominal ones: on a
# loaded host the growers, sleeping between steps, grow slower (sondeleak was
# seen at 28.8 MiB/s with load 8 on 2 CPUs), and sonde is right to say so.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq perl
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a memory cgroup)"

T=$(mktemp -d /tmp/sonde-scn-mem.XXXXXX)
CGROOT=/sys/fs/cgroup/memory
CG=
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	runout_rmcg "$CGROOT" "$CG"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# grower NAME START_MIB STEP_MIB: START then STEP every 250 ms, for 30 s at most
cat >"$T/grower" <<'PERL'
#!/usr/bin/perl
my ($name, $start, $step) = @ARGV;
$0 = $name;
my @a = ("x" x ($start << 20));
for (1 .. 120) { push @a, "x" x ($step << 20); select(undef, undef, undef, 0.25) }
PERL
chmod +x "$T/grower"
"$T/grower" sondeleak 16 16 &
PIDS+=($!)
LEAK=$!
if [ -w "$CGROOT/cgroup.procs" ] && mkdir "$CGROOT/sonde-runout-$$" 2>/dev/null; then
	CG=$CGROOT/sonde-runout-$$
	echo $((512 << 20)) >"$CG/memory.limit_in_bytes"
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2" sondecg 128 4' sh "$CG" "$T/grower" &
	PIDS+=($!)
	CGPID=$!
fi
mem_avail() { awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo; }
rss() { awk '/^VmRSS:/ { print $2 * 1024 }' "/proc/$1/status"; }
runout_sample "$T/avail.samples" mem_avail
# sondeleak's own growth, as sonde's per-process trend sees it (the host's available memory
# also falls with the cgroup's grower and whatever else runs)
runout_sample "$T/leak.samples" rss "$LEAK"
[ -n "$CG" ] && runout_sample "$T/cg.samples" cat "$CG/memory.usage_in_bytes"
sleep 1

runout_run "$T/f.json" --check use.memory-runout --check use.swap-runout
F=$T/f.json
avail=$(runout_at_end "$F" "$T/avail.samples")
leak_left=$(runout_metric "$F" use.memory-runout time_left_s "sondeleak (pid $LEAK)")
runout_left "sondeleak: time to exhaustion matches what is available at the growth the test saw" \
	"$leak_left" "$avail" "$(runout_rate "$F" "$T/leak.samples")"
is "$(runout_status "$F" use.memory-runout)" crit "use.memory-runout is crit"
comms=$(jq -r '[.findings[] | select(.check == "use.memory-runout")][0].culprits | map(.comm) | join(" ")' "$F")
if [ -n "$CG" ]; then
	cg_left=$(runout_metric "$F" use.memory-runout time_left_s "/sonde-runout-$$")
	used=$(runout_at_end "$F" "$T/cg.samples")
	# the cgroup started at 128 MiB + 16 MiB/s (nominal): at the window's end about 300 MiB of 512;
	# 8 MiB of slack at the top for a level read up to half a second after sonde's
	runout_left "the cgroup: time to its limit matches what is left at the growth the test saw" "$cg_left" \
		"$((512 * 1048576 - used))" "$(runout_rate "$F" "$T/cg.samples")" $((8 * 1048576))
	is "$comms" sondecg "the cgroup, running out first, leads the finding and names sondecg"
	ok "sondeleak is named too" grep -q "sondeleak" <(jq -r '.checks[] | select(.id == "use.memory-runout") | .evidence[] | select(.kind == "table") | .rows[]? | .[1]' "$F")
else
	skip "memory cgroup" "no writable cgroup v1 memory controller at $CGROOT"
	is "$comms" sondeleak "the finding names sondeleak"
fi
runout_no_finding "$F" use.swap-runout
done_testing
