#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: the connection tracking table fills. In a network namespace of the
# test's own, an nftables rule that matches on connection state makes the
# kernel track every flow; sondeflows sends one UDP datagram to a new port on
# loopback 500 times a second, each a new entry that lives 30 s: the table
# (nf_conntrack_max, shared by all namespaces) fills at 500 entries a second.
# sonde, run in that namespace, must find it running out with a time matching
# what is left and the rate (within a factor of 2). Skips without nftables or
# nf_conntrack.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq python3 ip nft
[ "$(id -u)" -eq 0 ] || skip_all "needs root (a network namespace, nftables)"

T=$(mktemp -d /tmp/sonde-scn-ct.XXXXXX)
NS=sonde-ct-$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$NS" || skip_all "cannot make a network namespace"
ip -n "$NS" link set lo up
ip netns exec "$NS" nft add table inet sonde &&
	ip netns exec "$NS" nft add chain inet sonde out '{ type filter hook output priority 0; }' &&
	ip netns exec "$NS" nft add rule inet sonde out ct state new counter 2>"$T/err" ||
	skip_all "cannot make a conntrack rule: $(cat "$T/err")"
[ -r /proc/sys/net/netfilter/nf_conntrack_max ] || skip_all "no nf_conntrack in this kernel"
MAX=$(cat /proc/sys/net/netfilter/nf_conntrack_max)

cat >"$T/flows.py" <<'PY'
import socket, time
with open("/proc/self/comm", "w") as f:
    f.write("sondeflows")
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(20000):
    s.sendto(b"x", ("127.0.0.1", 10000 + i % 50000))
    time.sleep(0.002)
PY
ip netns exec "$NS" python3 "$T/flows.py" &
PIDS+=($!)
runout_sample "$T/samples" ip netns exec "$NS" cat /proc/sys/net/netfilter/nf_conntrack_count
sleep 1

# a 20 s window: the table is minutes from full, and a forecast reaches 100 times the span seen
RUNOUT_NETNS=$NS runout_run "$T/f.json" --window 20 --check use.network-runout
F=$T/f.json
count=$(runout_at_end "$F" "$T/samples")
left=$(runout_metric "$F" use.network-runout time_left_s conntrack)
diag "${count:-?} entries of $MAX at the end of the window"
# at most 500 a second (2 ms sleeps, plus the sends themselves)
runout_between "time until the table is full matches what is left at 500/s or less" "$left" \
	"$(awk -v c="$count" -v m="$MAX" 'BEGIN { print (m - c) / 500 / 2 }')" \
	"$(awk -v c="$count" -v m="$MAX" 'BEGIN { print (m - c) / 500 * 4 }')"
st=$(runout_status "$F" use.network-runout)
ok "use.network-runout is a finding ($st)" test "$st" = crit -o "$st" = warn
ok "the summary names the conntrack table" grep -q "conntrack table will be exhausted" <(runout_finding "$F" use.network-runout .summary)
done_testing
