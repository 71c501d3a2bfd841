# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by live tests (after tests/lib/tap.sh): a first window that finds a
# process from counters or the profile, and the drill-down that traces it.

# jq -e, quietly: 0 when the filter's last output is true
jq_quiet() { jq -e "$@" >/dev/null 2>&1; }

# first_window_drill CHECK TOOL NAME COMMAND...: with COMMAND running (its
# pid is PID, NAME in the messages), `sonde run --check CHECK` (a 4 s window,
# its bundle in $T) exits 0; CHECK warned and named PID, the first window
# started no TOOL, and the drill-down's TOOL traced PID alone, filtered in the
# kernel (or was refused by its predicted cost, and said so). Skips when CHECK
# did not warn: a busy shared host can starve the load of the CPU the first
# window would see it use. COMMAND is ended before the function returns.
first_window_drill() {
	local check=$1 tool=$2 name=$3 json=$T/drill.json pid st dt
	shift 3
	"$@" >/dev/null &
	pid=$!
	sleep 0.5
	"$SONDE" run --window 4 --interval 1 --check "$check" --out "$T" --no-progress --json \
		>"$json" 2>"$T/drill.err"
	ok "a run beside $name exits 0" test $? -eq 0
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	st=$(jq -r --arg c "$check" '.checks[] | select(.id == $c) | "\(.status) \(.summary)"' "$json")
	diag "$check: $st"
	case "$st" in
	warn* | crit*) ;;
	*)
		skip "the first window names $name" "$check did not warn on this busy host: $st"
		return
		;;
	esac
	is "$(jq -r --arg c "$check" '.findings[] | select(.check == $c) | .culprits[0].pid' "$json")" \
		"$pid" "the first window's $check names $name"
	ok "the first window started no $tool" \
		jq_quiet --arg t "$tool" '[.tools[] | select(.name == $t)] | length == 0' "$json"
	dt=$(jq -c --arg t "$tool" '.drilldown.tools[]? | select(.name == $t)' "$json")
	diag "drill-down $tool: $dt"
	case $(jq -r '.status' <<<"$dt") in
	ok) is "$(jq -r .filtered_to <<<"$dt")" "$pid" "the drill-down's $tool traced $name alone" ;;
	over_budget) ok "$tool over the budget in the drill-down, the reason says so" \
		jq_quiet '.reason | test("predicted cost")' <<<"$dt" ;;
	*) ok "$tool in the drill-down: ok or over_budget (got $dt)" false ;;
	esac
}
