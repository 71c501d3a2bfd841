#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Scenario: an idle host is not running out of anything. Nothing of ours runs;
# none of the exhaustion checks may be a finding. This holds on a quiet machine
# (CI runs alone); on a shared one a finding names the other load, printed
# below for that reason.
. tests/lib/tap.sh
. tests/lib/runout.sh

runout_needs jq

T=$(mktemp -d /tmp/sonde-scn-ridle.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM

CHECKS=(use.memory-runout use.swap-runout use.filesystem-runout use.fd-runout use.task-runout
	use.network-runout use.network-listen)
args=()
for c in "${CHECKS[@]}"; do args+=(--check "$c"); done
runout_run "$T/f.json" "${args[@]}"
runout_no_finding "$T/f.json" "${CHECKS[@]}"
unknown=$(jq -r '[.unknowns[] | select(.metric == "time_left_s")] | length' "$T/f.json")
is "$unknown" 0 "a 10 s window fits every trend: no time to exhaustion is unknown"
done_testing
