#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: a service whose worker threads wait on a slow backend (issue 26).
# scn-backend listens on loopback and answers each request after 150 ms;
# scn-service runs 8 worker threads, each on its own connection, sending a
# request and waiting for the reply in a loop (half with a timeout: Python
# then polls the socket before reading it). CPUs, disks and memory idle.
# The thread states must say where the service's time goes:
# use.network-waits warns with scn-service as culprit and the backend's
# address named; the backend's threads, waiting for the next request on the
# connections they accepted, are idle and blamed for nothing.
. tests/lib/tap.sh

for tool in jq python3; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for the task iterator (BPF)"

T=$(mktemp -d /tmp/sonde-scn-backend.XXXXXX)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$T/backend.py" <<'PY'
import ctypes, socket, sys, threading, time
ctypes.CDLL(None).prctl(15, b"scn-backend", 0, 0, 0)
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(64)
open(sys.argv[1], "w").write(str(srv.getsockname()[1]))
def serve(c):
    while True:
        if not c.recv(64):
            return
        time.sleep(0.15)
        c.sendall(b"reply\n")
while True:
    c, _ = srv.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
cat >"$T/service.py" <<'PY'
import ctypes, socket, sys, threading
ctypes.CDLL(None).prctl(15, b"scn-service", 0, 0, 0)
port = int(sys.argv[1])
def work(i):
    s = socket.create_connection(("127.0.0.1", port))
    if i % 2:
        s.settimeout(5)     # poll(2) on the socket, then recv
    while True:
        s.sendall(b"request\n")
        s.recv(64)
ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
for t in ts: t.start()
for t in ts: t.join()
PY
python3 "$T/backend.py" "$T/port" &
PIDS+=($!)
for _ in $(seq 50); do [ -s "$T/port" ] && break; sleep 0.1; done
PORT=$(cat "$T/port")
[ -n "$PORT" ] || skip_all "the backend did not start"
python3 "$T/service.py" "$PORT" &
PIDS+=($!)
SERVICE=$!
sleep 1
diag "scn-service (pid $SERVICE): 8 workers waiting on scn-backend at 127.0.0.1:$PORT"

mkdir -p "$T/out"
"$SONDE" run --window 4 --no-progress --no-drilldown --json --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
rc=$?
is "$rc" 0 "sonde run --window 4 --json exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity) culprit \(.culprits[0].comm // "-"): \(.summary)")' \
	"$T/findings.json" 2>/dev/null | sed 's/^/# /'

f=$(jq -c '[.findings[] | select(.check == "use.network-waits")][0] // empty' "$T/findings.json")
ok "use.network-waits is a finding" test -n "$f"
is "$(jq -r .resource <<<"$f")" network "... on the network resource"
is "$(jq -r '.culprits[0].comm' <<<"$f")" scn-service "... its culprit is scn-service"
is "$(jq -r '.culprits[0].pid' <<<"$f")" "$SERVICE" "... by its pid"
ok "... the backend is named by its address" grep -q "127.0.0.1:$PORT" <<<"$(jq -r .summary <<<"$f")"
ok "... the backend is no culprit: its threads wait for requests, idle" \
	jq -e '[.culprits[].comm] | index("scn-backend") == null' <<<"$f"
ok "no finding blames scn-backend" \
	jq -e '[.findings[].culprits[]?.comm] | index("scn-backend") == null' "$T/findings.json"

pw=$(jq -c '.checks[] | select(.id == "workload.process-how")' "$T/findings.json")
ok "workload.process-how: scn-service's threads are blocked on the network" \
	jq -e '.evidence[0].rows | any(.[1] == "scn-service" and (.[7] | startswith("network")))' <<<"$pw"
ok "... scn-backend is not blocked: its threads wait for requests or sleep (idle)" \
	jq -e '.evidence[0].rows | all(.[1] != "scn-backend" or (.[5] | tonumber) < 0.5)' <<<"$pw"

done_testing
