#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: swap running out. The test turns on a 256 MiB swap file (only while
# it runs) and puts sondeswap in a v1 memory cgroup limited to 64 MiB: the 12
# MiB a second it keeps allocating can only go to swap, which fills in about 20
# s. sonde must find swap running out with a time that matches what is left and
# the rate (within a factor of 2), and name sondeswap. The rate is the one the
# test measures itself during the window (runout_rate on SwapFree), not the
# nominal 12 MiB/s: on a loaded host the grower, sleeping between steps, and
# reclaim run slower, and sonde is right to say so. Skips where this host has
# no swap support, cannot swap on a file of /tmp's file system, or has no
# writable memory cgroup.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq perl mkswap swapon swapoff
[ "$(id -u)" -eq 0 ] || skip_all "needs root (swapon, a memory cgroup)"
[ -e /proc/swaps ] || skip_all "this kernel has no swap support (no /proc/swaps)"
[ "$(wc -l </proc/swaps)" -le 1 ] || skip_all "swap is already on: the test would measure the host's, not its own"
CGROOT=/sys/fs/cgroup/memory
[ -w "$CGROOT/cgroup.procs" ] || skip_all "no writable cgroup v1 memory controller at $CGROOT"

T=$(mktemp -d /tmp/sonde-scn-swap.XXXXXX)
CG=$CGROOT/sonde-swap-$$
SWAP=$T/swap.img
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	runout_rmcg "$CGROOT" "$CG"
	grep -q "^$SWAP " /proc/swaps && swapoff "$SWAP"
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

dd if=/dev/zero of="$SWAP" bs=1M count=256 status=none && chmod 600 "$SWAP" && mkswap "$SWAP" >/dev/null ||
	skip_all "cannot make a swap file"
swapon "$SWAP" 2>"$T/err" || skip_all "swapon $SWAP: $(cat "$T/err") (no swap on this file system?)"
mkdir "$CG" || skip_all "cannot make $CG"
echo $((64 << 20)) >"$CG/memory.limit_in_bytes"
echo 100 >"$CG/memory.swappiness" 2>/dev/null

cat >"$T/sondeswap" <<'PERL'
#!/usr/bin/perl
$0 = "sondeswap";
my @a;
for (1 .. 100) { push @a, "x" x (3 << 20); select(undef, undef, undef, 0.25) }
PERL
chmod +x "$T/sondeswap"
sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2"' sh "$CG" "$T/sondeswap" &
PID=$!
PIDS+=($PID)
swap_free() { awk '/^SwapFree:/ { print $2 * 1024 }' /proc/meminfo; }
runout_sample "$T/samples" swap_free
sleep 2

runout_run "$T/f.json" --check use.swap-runout --check use.memory-runout
F=$T/f.json
free=$(runout_at_end "$F" "$T/samples")
left=$(runout_metric "$F" use.swap-runout time_left_s swap)
# SwapFree falls as swap fills: its rise is negative. 6 MiB of slack at the top for a level
# read up to half a second after sonde's.
rate=$(runout_rate "$F" "$T/samples")
runout_left "time to full matches what is free at the rate the test saw swap fill" "$left" \
	"$free" "$(awk -v r="$rate" 'BEGIN { if (r != "") print -r }')" $((6 * 1048576))
st=$(runout_status "$F" use.swap-runout)
ok "use.swap-runout is a finding ($st)" test "$st" = crit -o "$st" = warn
# the grower or the holder of the most swap: another process growing faster on a busy host comes first
ok "it names sondeswap among its culprits" grep -qx sondeswap <(runout_finding "$F" use.swap-runout '.culprits[].comm')
ok "and in its summary" grep -q 'sondeswap (pid' <(runout_finding "$F" use.swap-runout .summary)
done_testing
