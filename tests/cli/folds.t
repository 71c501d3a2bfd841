#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report.html's folds, from golden captures (deterministic): a section whose
# checks are all ok is one line ("2 checks, all ok"), one with a finding is
# not; a check that is not a finding folds under its heading; a finding's
# evidence folds behind a line that counts it; report.md keeps everything.
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
T=$(mktemp -d /tmp/sonde-folds.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR" "$T/ok" "$T/hog" "$T/x1" "$T/x2"

"$SONDE" analyze tests/checks/all/idle --check use.cpu-utilization --check use.memory-utilization \
	-o "$T/ok" >/dev/null 2>&1
tar -xJf "$(ls "$T"/ok/sonde-*.tar.xz)" -C "$T/x1" report.html report.md
ok "all ok: the USE details are one line" \
	grep -qF '<details class="fold"><summary>2 checks, all ok</summary>' "$T/x1/report.html"
ok "all ok: each check inside folds under its heading" \
	grep -qF '<details class="fold"><summary><h3 id="use.cpu-utilization">ok: ' "$T/x1/report.html"
ok "report.md: nothing folded, the checks are there" grep -q '^### ok: CPU utilization$' "$T/x1/report.md"

"$SONDE" analyze tests/checks/use.cpu-saturation/hog -o "$T/hog" >/dev/null 2>&1
tar -xJf "$(ls "$T"/hog/sonde-*.tar.xz)" -C "$T/x2" report.html
ok "a finding: no \"all ok\" line" sh -c "! grep -q 'all ok</summary>' '$T/x2/report.html'"
ok "a finding's evidence folds behind a line that counts it" \
	grep -qE '<details class="fold"><summary>Evidence: [0-9]+ metrics?' "$T/x2/report.html"
ok "the verdict lists the other findings" grep -qF '<p>Also found:</p>' "$T/x2/report.html"

done_testing
