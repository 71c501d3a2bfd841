#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sandbox budgets where the count hook does not reach: Lua runs message
# handlers and finalizers with hooks off, and the C pattern matcher never
# returns to the VM. Each of these checks must still be stopped by the
# per-check budget (5 s wall) and the next check must still run. Each case is
# its own `sonde analyze` over captures taken once, all at the same time, each
# under a hard timeout, so a hang costs this file 15 s and not the suite.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v jq >/dev/null || skip_all "jq is not installed"
command -v timeout >/dev/null || skip_all "timeout (coreutils) is not installed"

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/checks
mkdir -p "$D/use" "$T/cap" "$T/b"

check() { tap_check_file "$D" "$1" "$2"; }
check zz-normal '    ctx:metric("normal", 2, { warn = 10 })'

# name | body
CASES=$(cat <<'EOF'
xpcall-handler-loop|    xpcall(function() while true do end end, function() while true do end end)
xpcall-error-handler-loop|    xpcall(error, function() while true do end end)
gc-loop-at-close|    local t = setmetatable({}, { __gc = function() while true do end end })
gc-loop-during-run|    for i = 1, 1e7 do setmetatable({}, { __gc = function() while true do end end }) end
pattern-backtracking|    string.find(string.rep("a", 40), string.rep("a*", 20) .. "b")
gsub-backtracking|    string.rep("a", 5000):gsub(".-.-.-.-.-b", "")
EOF
)
while IFS='|' read -r name body; do
	check "$name" "$body"
done <<<"$CASES"

"$SONDE" run --window 1 --interval 0.5 --out "$T/cap" --no-progress --check use.cpu-errors \
	>/dev/null 2>&1 && tar -xJf "$T"/cap/sonde-*.tar.xz -C "$T/b" ||
	skip_all "cannot take captures with sonde run"

LIMIT=15
while IFS='|' read -r name _; do
	(
		s=$(date +%s%N)
		timeout -k 2 $LIMIT "$SONDE" analyze "$T/b" --json --checks "$D" \
			--check "use.$name" --check use.zz-normal >"$T/$name.json" 2>"$T/$name.err"
		echo $? >"$T/$name.rc"
		echo $((($(date +%s%N) - s) / 1000000)) >"$T/$name.ms"
	) &
done <<<"$CASES"
wait

st() { jq -r --arg id "$2" '.checks[] | select(.id == $id) | .status' "$T/$1.json" 2>/dev/null; }

while IFS='|' read -r name _; do
	id=use.$name
	rc=$(cat "$T/$name.rc")
	ms=$(cat "$T/$name.ms")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		diag "$id: sonde still running after ${LIMIT} s (killed by timeout, exit $rc)"
	fi
	is "$rc" 0 "$id: sonde analyze exits 0 (took ${ms} ms)"
	case $name in
	gc-loop-at-close)
		# run() returns normally; the finalizer runs when the state closes.
		s=$(st "$name" "$id")
		ok "$id: stopped, ends ok or error (got '$s')" test "$s" = ok -o "$s" = error
		;;
	*)
		is "$(st "$name" "$id")" error "$id: ends as error"
		m=$(jq -r --arg id "$id" '.checks[] | select(.id == $id) | .error // ""' \
			"$T/$name.json" 2>/dev/null)
		# finalizers are refused up front; everything else is stopped by a budget
		ok "$id: the error says why it was stopped (got '$m')" \
			grep -Eq 'stopped|budget exceeded|__gc finalizers are not allowed' <<<"$m"
		;;
	esac
	is "$(st "$name" use.zz-normal)" ok "$id: the next check still runs and ends ok"
done <<<"$CASES"

done_testing
