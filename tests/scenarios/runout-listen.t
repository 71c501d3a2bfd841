#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: a listen queue overflows. sondeslowsrv listens on 127.0.0.1 with a
# backlog of 8 and accepts 2 connections a second; a client connects 50 times a
# second and keeps them open. The accept queue is full from the first second:
# sonde must report that listener overflowing (crit), by its address and port,
# with its owner (sondeslowsrv), its backlog, and how fast it accepts.
# Traffic stays on loopback.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq python3

T=$(mktemp -d /tmp/sonde-scn-listen.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

cat >"$T/server.py" <<'PY'
import socket, sys, time
with open("/proc/self/comm", "w") as f:
    f.write("sondeslowsrv")
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
with open(sys.argv[1], "w") as f:
    f.write(str(s.getsockname()[1]))
kept = []
for _ in range(120):
    c, _ = s.accept()
    kept.append(c)
    time.sleep(0.5)
PY
cat >"$T/client.py" <<'PY'
import socket, sys, time
port = int(sys.argv[1])
kept = []
for _ in range(1500):
    c = socket.socket()
    c.setblocking(False)
    try:
        c.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    kept.append(c)
    time.sleep(0.02)
PY
python3 "$T/server.py" "$T/port" &
PIDS+=($!)
SRV=$!
# python3 may take seconds to start on a loaded host: wait up to 15 s for the port
for _ in $(seq 150); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port" 2>/dev/null)
if [ -z "$PORT" ]; then
	ok "sondeslowsrv listens (no port after 15 s)" false
	done_testing
	exit
fi
python3 "$T/client.py" "$PORT" &
PIDS+=($!)
sleep 1

runout_run "$T/f.json" --check use.network-listen
F=$T/f.json
NAME="127.0.0.1:$PORT"
is "$(runout_metric "$F" use.network-listen time_left_s "$NAME")" 0 "$NAME: no time left (its queue is full)"
is "$(runout_status "$F" use.network-listen)" crit "use.network-listen is crit"
is "$(runout_finding "$F" use.network-listen '.culprits[0].comm')" sondeslowsrv "it names the owner, sondeslowsrv"
is "$(runout_finding "$F" use.network-listen '.culprits[0].pid')" "$SRV" "by pid"
sum=$(runout_finding "$F" use.network-listen .summary)
ok "the summary names the listener, its backlog and the accept rate ($sum)" \
	grep -Eq "listener $NAME is overflowing.*backlog of 8.*accepting [0-9.]+/s" <<<"$sum"
done_testing
