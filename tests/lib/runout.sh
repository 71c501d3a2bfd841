# SPDX-License-Identifier: GPL-2.0-or-later
# What the scenarios of resources running out share (tests/scenarios/runout-*.t),
# sourced after tests/lib/tap.sh: a run of sonde, and reading its findings.json.

# runout_needs TOOL...: skip the whole test unless every TOOL is installed and sonde is built
runout_needs() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
	done
	[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
}

# runout_run FINDINGS ARGS...: sonde run --json (10 s window unless ARGS say) into FINDINGS,
# its bundle beside it (unless ARGS give --out); inside network namespace RUNOUT_NETNS when set;
# RUNOUT_ARGS (e.g. --no-bpf: processes from the /proc walk instead of the task iterator) added
runout_run() {
	local f=$1 rc
	local -a in=()
	shift
	[ -n "${RUNOUT_NETNS:-}" ] && in=(ip netns exec "$RUNOUT_NETNS")
	# shellcheck disable=SC2206
	[ -n "${RUNOUT_ARGS:-}" ] && set -- "$@" ${RUNOUT_ARGS}
	case " $* " in *" --out "*) ;; *) set -- --out "$(dirname "$f")" "$@" ;; esac
	"${in[@]}" "$SONDE" run --window 10 --interval 1 --no-progress --json "$@" >"$f" 2>"$f.err"
	rc=$?
	is "$rc" 0 "sonde run exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$f.err"
	jq -r '.verdict, (.findings[] | "\(.rank) \(.check) \(.severity): \(.summary)")' "$f" 2>/dev/null |
		sed 's/^/# /'
}

# runout_metric FINDINGS CHECK NAME INSTANCE: the metric's value (empty when absent)
runout_metric() {
	jq -r --arg c "$2" --arg n "$3" --arg i "$4" \
		'[.checks[] | select(.id == $c) | .metrics[] | select(.name == $n and .instance == $i) | .value][0] // empty' "$1"
}

# runout_status FINDINGS CHECK
runout_status() {
	jq -r --arg c "$2" '.checks[] | select(.id == $c) | .status' "$1"
}

# runout_finding FINDINGS CHECK FIELD: a field of that check's finding (empty when none)
runout_finding() {
	jq -r --arg c "$2" "[.findings[] | select(.check == \$c)][0] | $3 // empty" "$1"
}

# runout_between NAME VALUE LO HI: one test that LO <= VALUE <= HI
runout_between() {
	ok "$1 (${2:-none} in [$3, $4])" awk -v v="${2:-x}" -v lo="$3" -v hi="$4" \
		'BEGIN { exit !(v != "x" && v + 0 >= lo && v + 0 <= hi) }'
}

# runout_no_finding FINDINGS CHECK...: none of the checks is a finding (neither warn nor crit)
runout_no_finding() {
	local f=$1 c st
	shift
	for c in "$@"; do
		st=$(runout_status "$f" "$c")
		ok "$c: no finding ($st)" test -n "$st" -a "$st" != warn -a "$st" != crit
		[ "$st" = warn ] || [ "$st" = crit ] && diag "$c: $(runout_finding "$f" "$c" .summary)"
	done
	return 0
}

# runout_sample FILE CMD...: in the background, "EPOCH VALUE" lines into FILE twice a second,
# VALUE what CMD prints; its pid is appended to PIDS (the test's cleanup kills them)
runout_sample() {
	local f=$1
	shift
	while :; do
		echo "$(date +%s.%N) $("$@" 2>/dev/null)"
		sleep 0.5
	done >"$f" &
	PIDS+=($!)
}

# runout_at_end FINDINGS SAMPLES: the value of SAMPLES ("EPOCH VALUE" lines, oldest first) at the
# end of the window of FINDINGS: what the test itself saw when sonde stopped looking
runout_at_end() {
	local end
	end=$(date -u -d "$(jq -r .window.end "$1")" +%s)
	awk -v e="$end" '$1 <= e + 0.5 { v = $2 } END { print v }' "$2"
}

# runout_rate FINDINGS SAMPLES: how fast SAMPLES ("EPOCH VALUE" lines) rose, in units a second,
# while sonde looked (between the start and the end of the window of FINDINGS): the rate the test
# itself saw, not the one its grower was asked for (on a loaded host a grower that sleeps between
# steps grows slower than nominal). A least-squares slope over every sample in the window, not
# sonde's estimator (Theil-Sen over its own samples) nor first-minus-last, so a fit that is wrong
# in sonde is not wrong here the same way. A falling series gives a negative rate. Empty when the
# window holds fewer than 4 samples. The window's ends are whole seconds (truncated): the samples
# taken are those from its start's second to the end of its end's.
runout_rate() {
	local s e
	s=$(date -u -d "$(jq -r .window.start "$1")" +%s) || return
	e=$(date -u -d "$(jq -r .window.end "$1")" +%s) || return
	awk -v s="$s" -v e="$e" '
		NF >= 2 && $1 >= s && $1 < e + 1 { t = $1 - s; n++; st += t; sy += $2; stt += t * t; sty += t * $2 }
		END { d = n * stt - st * st; if (n >= 4 && d > 0) printf "%.6g\n", (n * sty - st * sy) / d }' "$2"
}

# runout_left NAME LEFT HEADROOM RATE SLACK: one test that sonde's time LEFT (s) until a resource
# runs out matches HEADROOM (what the test saw left at the window's end) at RATE (runout_rate),
# within a factor of 2 either way; SLACK (units, e.g. one step of the grower) is added to the
# headroom at the top, for a level read up to half a second from sonde's. Fails, saying so, when
# the test saw no growth (the scenario did not happen: nothing to compare with).
runout_left() {
	local name=$1 left=$2 room=$3 rate=$4 slack=${5:-0}
	if ! awk -v r="${rate:-0}" 'BEGIN { exit !(r + 0 > 0) }'; then
		ok "$name (the test saw no growth in the window: rate ${rate:-none})" false
		return
	fi
	diag "$name: the test saw $room left, growing $rate a second"
	runout_between "$name" "$left" \
		"$(awk -v h="$room" -v r="$rate" 'BEGIN { print h / r / 2 }')" \
		"$(awk -v h="$room" -v r="$rate" -v k="$slack" 'BEGIN { print (h + k) / r * 2 }')"
}

# runout_rmcg ROOT CG: move CG's processes back to ROOT (a v1 hierarchy) and remove CG
runout_rmcg() {
	local p
	[ -n "$2" ] && [ -d "$2" ] || return 0
	while read -r p; do echo "$p" >"$1/cgroup.procs" 2>/dev/null; done <"$2/cgroup.procs"
	rmdir "$2" 2>/dev/null
}
