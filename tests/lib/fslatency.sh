# SPDX-License-Identifier: GPL-2.0-or-later
# For the scenarios that observe a file workload through fslatency (sourced
# after tap.sh, with T, LOAD (the workload's pid) and SONDE set):
# fslat_observe runs a 4 s first window with drilldown.filesystem-why and
# the budget off (--max-overhead 0: what is tested is the measurement, not
# the admission), stops the workload, and leaves findings.json in
# $T/findings.json, the tool's capture in $T/fslatency.json and the
# workload's pid in LOAD_PID (LOAD emptied: the cleanup has nothing to kill).
fslat_observe() {
	local rc bundle

	mkdir -p "$T/out"
	"$SONDE" run --window 4 --interval 1 --no-drilldown --max-overhead 0 --no-progress --json \
		--check drilldown.filesystem-why --out "$T/out" >"$T/findings.json" 2>"$T/sonde.err"
	rc=$?
	is "$rc" 0 "sonde run --check drilldown.filesystem-why exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   sonde stderr: /' "$T/sonde.err"
	kill "$LOAD" 2>/dev/null
	wait "$LOAD" 2>/dev/null
	LOAD_PID=$LOAD
	LOAD=

	bundle=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
	ok "a bundle was written" test -n "$bundle"
	tar -xJOf "$bundle" raw/bpf/fslatency.json >"$T/fslatency.json" 2>/dev/null
	is "$(jq -r .status "$T/fslatency.json")" ok \
		"fslatency ran ($(jq -r '.reason // .attach' "$T/fslatency.json"))"
}
