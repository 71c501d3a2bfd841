#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile local user against a root `sonde run` (issue 18, item 2): the
# profiler reads /tmp/perf-PID.map of every process it samples, and any user
# can put what they like there for their own processes. Two CPU hogs run as
# nobody: one has a FIFO as its perf map (a blocking open used to hang the
# run until --timeout, with no bundle), the other a 200 GB sparse file (read
# to its end, the same). sonde must end on time with its bundle, and the
# profile must hold both hogs' samples.
. tests/lib/tap.sh

jq_true() { jq -e "$@" >/dev/null 2>&1; }

for tool in jq tar xz setpriv mkfifo truncate; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF and to run the hogs as another user"

T=$(mktemp -d /tmp/sonde-safety-perfmap.XXXXXX)
chmod 755 "$T"
PIDS=()
MAPS=()
cleanup() {
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	rm -f "${MAPS[@]}"
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The hog: a shell loop as nobody (no compiler needed), its own process.
hog() {
	setpriv --reuid=65534 --regid=65534 --clear-groups sh -c 'while :; do :; done' &
	PIDS+=($!)
}
hog
FIFO_PID=${PIDS[0]}
hog
SPARSE_PID=${PIDS[1]}
sleep 0.2
# The user's moves, as that user: in /tmp (sticky), files of their own.
MAPS=("/tmp/perf-$FIFO_PID.map" "/tmp/perf-$SPARSE_PID.map")
rm -f "${MAPS[@]}"
setpriv --reuid=65534 --regid=65534 --clear-groups mkfifo "/tmp/perf-$FIFO_PID.map" ||
	skip_all "nobody cannot make a FIFO in /tmp"
setpriv --reuid=65534 --regid=65534 --clear-groups sh -c \
	"echo '10000 100 jit_stub' >/tmp/perf-$SPARSE_PID.map && truncate -s 200G /tmp/perf-$SPARSE_PID.map" ||
	skip_all "nobody cannot make a 200 GB sparse file in /tmp"
diag "hogs (uid 65534): $FIFO_PID with a FIFO, $SPARSE_PID with a 200 GB sparse perf map"

mkdir "$T/out"
start=$(date +%s.%N)
timeout 120 "$SONDE" run --window 3 --interval 1 --out "$T/out" --no-progress --json --no-drilldown \
	--timeout 60 --check workload.cpu-why >"$T/findings.json" 2>"$T/stderr"
rc=$?
took=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
diag "sonde run took $took s"
is "$rc" 0 "sonde run exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"
ok "it ends on time (3 s window: $took s, well before --timeout 60)" \
	awk -v t="$took" 'BEGIN { exit !(t < 20) }'
shopt -s nullglob
B=("$T"/out/sonde-*.tar.xz)
shopt -u nullglob
is "${#B[@]}" 1 "a bundle was written"
if [ "${#B[@]}" -eq 1 ] && tar -xJf "${B[0]}" -C "$T" raw/bpf/profile.json 2>/dev/null; then
	P=$T/raw/bpf/profile.json
	status=$(jq -r '.status' "$P")
	if [ "$status" = ok ]; then
		for pid in "$FIFO_PID" "$SPARSE_PID"; do
			ok "the profile holds samples of hog $pid" \
				jq_true --argjson p "$pid" '[.. | objects | select(.tgid? == $p)] | length > 0' "$P"
		done
	else
		skip "the hogs' samples" "profile did not run here: $(jq -r '.reason // "?"' "$P")"
	fi
else
	ok "the bundle holds raw/bpf/profile.json" false
fi
done_testing
