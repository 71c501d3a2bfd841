#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: local ports running out, over a virtual link. Two network
# namespaces of the test's own joined by a veth pair; in the client's, the
# ephemeral port range is narrowed to 1000 ports and TIME_WAIT is not reused.
# sondeconnect connects to the server about 50 times a second and closes first
# (each connection leaves its port in TIME_WAIT for 60 s), keeping every tenth
# open: the ports toward the server run out in about 20 s. sonde, run inside the
# client's namespace, must find that (with a time matching what is left and
# the rate, within a factor of 2) and name sondeconnect; and the veth, whose
# made-up speed is no capacity, must get no utilization but n/a with the reason.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq python3 ip
[ "$(id -u)" -eq 0 ] || skip_all "needs root (network namespaces)"

T=$(mktemp -d /tmp/sonde-scn-ports.XXXXXX)
A=sonde-pa-$$
B=sonde-pb-$$
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	ip netns del "$A" 2>/dev/null
	ip netns del "$B" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ip netns add "$A" && ip netns add "$B" || skip_all "cannot make network namespaces"
ip link add vpa-$$ netns "$A" type veth peer name vpb-$$ netns "$B" || skip_all "cannot make a veth pair"
ip -n "$A" addr add 10.231.0.1/24 dev vpa-$$ && ip -n "$B" addr add 10.231.0.2/24 dev vpb-$$
ip -n "$A" link set vpa-$$ up && ip -n "$B" link set vpb-$$ up
ip -n "$A" link set lo up && ip -n "$B" link set lo up
ip netns exec "$A" sysctl -qw net.ipv4.ip_local_port_range="40000 40999" net.ipv4.tcp_tw_reuse=0 ||
	skip_all "cannot narrow ip_local_port_range in a namespace"

cat >"$T/server.py" <<'PY'
import selectors, socket
sel = selectors.DefaultSelector()
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.231.0.2", 7070))
s.listen(512)
s.setblocking(False)
sel.register(s, selectors.EVENT_READ)
while True:
    for key, _ in sel.select():
        if key.fileobj is s:
            c, _ = s.accept()
            c.setblocking(False)
            sel.register(c, selectors.EVENT_READ)
            continue
        c = key.fileobj
        try:
            data = c.recv(1)
        except OSError:
            data = b""
        if not data:  # the client closed first: its port stays in TIME_WAIT
            sel.unregister(c)
            c.close()
PY
cat >"$T/client.py" <<'PY'
import socket, time
with open("/proc/self/comm", "w") as f:
    f.write("sondeconnect")
kept = []
for i in range(2000):
    try:
        c = socket.create_connection(("10.231.0.2", 7070), timeout=2)
    except OSError:
        time.sleep(0.1)
        continue
    if i % 10 == 0:
        kept.append(c)
    else:
        c.close()
    time.sleep(0.02)
PY
ip netns exec "$B" python3 "$T/server.py" &
PIDS+=($!)
sleep 0.5
ip netns exec "$A" python3 "$T/client.py" &
PIDS+=($!)
# what the test sees: the ports in use in the client's namespace
ports_used() { ip netns exec "$A" ss -tan state all '( sport >= :40000 and sport <= :40999 )' | tail -n +2 | wc -l; }
runout_sample "$T/samples" ports_used
sleep 1

RUNOUT_NETNS=$A runout_run "$T/f.json" --check use.network-runout --check use.network-utilization --check use.network-saturation
F=$T/f.json
used=$(runout_at_end "$F" "$T/samples")
left=$(runout_metric "$F" use.network-runout time_left_s "local ports")
diag "${used:-?} ports of 1000 in use at the end of the window"
runout_between "time until the ports run out matches what is left at about 50/s" "$left" \
	"$(awk -v u="$used" 'BEGIN { print (1000 - u) / 50 / 2 }')" "$(awk -v u="$used" 'BEGIN { print (1000 - u + 100) / 50 * 2 }')"
is "$(runout_status "$F" use.network-runout)" crit "use.network-runout is crit"
ok "the summary names the destination" grep -q "local ports to 10.231.0.2:7070" <(runout_finding "$F" use.network-runout .summary)
is "$(runout_finding "$F" use.network-runout '.culprits[0].comm')" sondeconnect "it names sondeconnect"
is "$(runout_metric "$F" use.network-utilization link_pct "vpa-$$")" "" "the veth has no utilization against its made-up speed"
reason=$(jq -r --arg i "vpa-$$" '.checks[] | select(.id == "use.network-utilization") | .not_applicable[]? | select(.instance == $i) | .reason' "$F")
ok "its utilization is n/a with the reason ($reason)" grep -q "virtual link (veth)" <<<"$reason"
runout_no_finding "$F" use.network-utilization
done_testing
