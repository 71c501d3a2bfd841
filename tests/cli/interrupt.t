#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Ctrl-C and SIGTERM during the window: the first signal ends the window
# early, the checks run on what was captured, and the bundle is written,
# marked partial; sonde exits 0. A second signal exits at once: what may stay
# behind is the staging dir (.sonde-run-*) with the captures, nothing else.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"

T=$(mktemp -d)
PIDS=()
cleanup() {
	for p in "${PIDS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# wait_exit PID SECONDS: waits for PID to end; sets RC (its exit status, or
# "timeout" after SECONDS, when it is killed) and WAITED_MS.
wait_exit() {
	local pid=$1 limit_ms=$(($2 * 1000)) t0
	t0=$(now_ms)
	while kill -0 "$pid" 2>/dev/null; do
		if [ $(($(now_ms) - t0)) -ge "$limit_ms" ]; then
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			RC=timeout
			WAITED_MS=$(($(now_ms) - t0))
			return
		fi
		sleep 0.05
	done
	wait "$pid"
	RC=$?
	WAITED_MS=$(($(now_ms) - t0))
}

# start DIR [ARGS...]: sonde run --window 30 into DIR in the background; sets PID
start() {
	local dir=$1
	shift
	mkdir -p "$dir"
	"$SONDE" run --window 30 --out "$dir" --no-progress --json "$@" \
		>"$dir.json" 2>"$dir.err" &
	PID=$!
	PIDS+=("$PID")
}

# in_window DIR SECONDS: waits (up to 20 s) until the window of the run into
# DIR has begun, which its first round's captures in the staging dir show, then
# SECONDS more. On a loaded host sonde, at nice 10, may still be loading its
# tools when a fixed delay ends, and a signal then ends a window of nothing.
in_window() {
	local i
	for i in $(seq 1 400); do
		compgen -G "$1/.sonde-run-*/raw/*.cap" >/dev/null && break
		sleep 0.05
	done
	sleep "$2"
}

# jqt FILE FILTER: FILTER is true on FILE (quietly)
jqt() { jq -e "$2" "$1" >/dev/null 2>&1; }

# leftovers DIR: every .sonde-* entry in DIR, one per line
leftovers() { ls -A "$1" | grep '^\.sonde-'; }

# ---- one signal: partial window, exit 0, one bundle marked partial ----
for sig in INT TERM; do
	D=$T/one-$sig
	start "$D"
	in_window "$D" 1.5
	kill -"$sig" "$PID"
	wait_exit "$PID" 10
	is "$RC" 0 "SIG$sig: sonde exits 0"
	ok "SIG$sig: it exits within 5 s of the signal (took ${WAITED_MS} ms)" \
		test "$WAITED_MS" -lt 5000
	is "$(jq -r '.window.partial' "$D.json" 2>/dev/null)" true \
		"SIG$sig: findings.json on stdout says the window is partial"
	secs=$(jq -r '.window.seconds' "$D.json" 2>/dev/null)
	ok "SIG$sig: the window lasted between 1 and 10 s (got $secs)" \
		jqt "$D.json" '.window.seconds >= 1 and .window.seconds <= 10'
	is "$(jq -r '.window.requested_seconds' "$D.json" 2>/dev/null)" 30 \
		"SIG$sig: the requested window is still 30 s"
	ok "SIG$sig: the stop reason says it was interrupted" \
		jqt "$D.json" '.window.stop_reason | test("interrupt")'
	ok "SIG$sig: the checks still ran" \
		jqt "$D.json" '[.checks[] | select(.status != "error")] | length > 3'
	is "$(ls "$D" | grep -c '^sonde-.*\.tar\.xz$')" 1 "SIG$sig: one bundle in --out"
	is "$(leftovers "$D")" "" "SIG$sig: no .sonde-* temporary files or dirs left"
	mkdir -p "$D.x"
	tar -xJf "$D"/sonde-*.tar.xz -C "$D.x" 2>/dev/null
	is "$(jq -r '.window.partial' "$D.x/findings.json" 2>/dev/null)" true \
		"SIG$sig: the bundle's findings.json says partial"
	is "$(jq -r '.partial' "$D.x/manifest.json" 2>/dev/null)" true \
		"SIG$sig: the bundle's manifest.json says partial"
done

# ---- an interrupted window that calls for a drill-down: no second window ----
# Four busy loops per CPU saturate the CPUs, so use.cpu-saturation ends warn or
# crit and its drill-down rule fires; after Ctrl-C the user wants the report,
# not a second window.
HOGS=()
for _ in $(seq 1 $((4 * $(nproc)))); do
	sh -c 'while :; do :; done' &
	HOGS+=($!)
	PIDS+=($!)
done
D=$T/drill
start "$D" --check use.cpu-saturation
in_window "$D" 2
# nice_of PID: the main thread's nice value (field 19 of its stat; the name in
# field 2 has no spaces here)
nice_of() { awk '{ print $19 }' "/proc/$1/stat" 2>/dev/null; }
nice_before=$(nice_of "$PID")
kill -INT "$PID"
sleep 0.2
nice_after=$(nice_of "$PID")
wait_exit "$PID" 20
kill -KILL "${HOGS[@]}" 2>/dev/null
wait "${HOGS[@]}" 2>/dev/null
if jqt "$D.json" '.checks[] | select(.id == "use.cpu-saturation") | .status == "warn" or .status == "crit"'; then
	ok "interrupted with a drill-down due: exits within 5 s of the signal (took ${WAITED_MS} ms)" \
		test "$RC" = 0 -a "$WAITED_MS" -lt 5000
	is "$nice_before" 10 "in the window sonde runs at nice 10"
	# (unless it had already ended, which the check above would have shown)
	is "${nice_after:-0}" 0 "after the signal sonde is back at its own priority: the user waits for the report"
	ok "interrupted with a drill-down due: the report says no second window ran" \
		jqt "$D.json" '.drilldown.note | test("interrupted")'
	ok "interrupted with a drill-down due: the rule that fired is still listed" \
		jqt "$D.json" '.drilldown.fired | length > 0'
else
	skip "interrupted with a drill-down due" "use.cpu-saturation did not fire under $((4 * $(nproc))) busy loops (status $RC)"
fi

# ---- a second SIGINT while the checks run: exits at once ----
# A user check that computes for 1.5 s keeps sonde in the analysis after the
# first signal; the second one, 0.3 s later, must end it there and then.
C=$T/checks
mkdir -p "$C/use"
cat >"$C/use/slow.lua" <<'EOF'
--- Computes for 1.5 s of CPU time (under the per-check budgets).
return {
  id = "use.slow", title = "slow",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx, args)
    local t0 = os.clock()
    while os.clock() - t0 < 1.5 do end
    ctx:metric("slow", 1)
  end,
}
EOF
D=$T/twice
start "$D" --checks "$C" --check use.slow --check use.cpu-errors
in_window "$D" 0.5
kill -INT "$PID"
sleep 0.3
kill -INT "$PID" 2>/dev/null
wait_exit "$PID" 10
diag "second SIGINT during the checks: exit status $RC; left in --out: $(ls -A "$D" | tr '\n' ' ')"
ok "second SIGINT during the checks: exits within 1 s of it (took ${WAITED_MS} ms)" \
	test "$RC" != timeout -a "$WAITED_MS" -lt 1000
is "$RC" 130 "second SIGINT during the checks: sonde ends by SIGINT (status 130)"
is "$(cat "$D.json")" "" "second SIGINT during the checks: no findings.json printed"
left=$(leftovers "$D")
is "$(grep -v '^\.sonde-run-' <<<"$left")" "" \
	"second SIGINT during the checks: no .sonde-* leftover other than a .sonde-run-* staging dir"
# (its lock file beside it, unlocked now, lets the next run take it)
ok "second SIGINT during the checks: at most one staging dir" \
	test "$(grep '^\.sonde-run-' <<<"$left" | grep -vc '\.lock$')" -le 1
is "$(ls "$D" | grep -c '^sonde-.*\.tar\.xz$')" 0 "second SIGINT during the checks: no bundle"

# Two signals back to back usually arrive as one pending signal: a normal
# interrupted run; if they do not, the second ends sonde during the window.
D=$T/at-once
start "$D" --check use.cpu-errors
in_window "$D" 0.5
kill -INT "$PID"
kill -INT "$PID" 2>/dev/null
wait_exit "$PID" 10
left=$(leftovers "$D")
diag "two SIGINTs back to back: exit status $RC; left in --out: $(ls -A "$D" | tr '\n' ' ')"
ok "two SIGINTs back to back: exits within 3 s (status $RC, took ${WAITED_MS} ms)" \
	test "$RC" != timeout -a "$WAITED_MS" -lt 3000
is "$(grep -v '^\.sonde-run-' <<<"$left")" "" \
	"two SIGINTs back to back: no .sonde-* leftover other than a .sonde-run-* staging dir"
if [ "$RC" = 0 ]; then
	is "$(ls "$D" | grep -c '^sonde-.*\.tar\.xz$')" 1 "two SIGINTs seen as one: one bundle"
else
	is "$RC" 130 "two SIGINTs back to back: the second ends sonde by SIGINT (status 130)"
fi

# ---- a second SIGINT while the bundle is being written ----
# A 10 ms interval makes big captures, so writing the bundle takes a while;
# the second signal is sent as soon as the bundle's temporary file appears.
D=$T/late
start "$D" --interval 0.01
in_window "$D" 1
kill -INT "$PID"
seen=
for _ in $(seq 1 400); do
	if ls -A "$D" | grep -q '\.tmp'; then
		seen=$(ls -A "$D" | grep '\.tmp' | head -1)
		kill -INT "$PID" 2>/dev/null
		break
	fi
	kill -0 "$PID" 2>/dev/null || break
	sleep 0.01
done
wait_exit "$PID" 10
if [ -z "$seen" ]; then
	skip "second SIGINT while the bundle is written" "the bundle was written before it could be seen (status $RC)"
else
	diag "second SIGINT sent while $seen existed; exit status $RC; left: $(ls -A "$D" | tr '\n' ' ')"
	ok "second SIGINT during the bundle write: exits within 3 s (took ${WAITED_MS} ms)" \
		test "$RC" != timeout -a "$WAITED_MS" -lt 3000
	left=$(leftovers "$D")
	is "$(grep -v '^\.sonde-run-' <<<"$left")" "" \
		"second SIGINT during the bundle write: no temporary bundle (.sonde-*.tmp.*) left behind"
fi

done_testing
