#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Numbers for people (util/units.c), in every rendering: a check of this test
# (tests/cli/numbers/checks) reports the figures the issue found printed for
# machines ("2.155e+04 /s", "4.506e+05 bytes/s", "queue_size 0.002803", "1
# samples", a kernel symbol as "\_\_rmap_walk_file\_[k]"); report.md,
# report.html and the terminal must say them with three significant digits,
# no exponent, the singular for one, and symbols as code.
. tests/lib/tap.sh

for tool in jq tar xz; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

CASE=tests/checks/use.cpu-saturation/hog
T=$(mktemp -d /tmp/sonde-numbers.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/out" "$T/x"

"$SONDE" analyze "$CASE" --checks tests/cli/numbers/checks --check use.interconnect-saturation \
	--color never -o "$T/out" >"$T/terminal" 2>"$T/stderr"
is "$?" 0 "analyze with the test check runs"
tar -xJf "$(ls "$T"/out/sonde-*.tar.xz | head -1)" -C "$T/x" findings.json report.md report.html
md=$T/x/report.md html=$T/x/report.html

is "$(jq -r '.checks[] | select(.id == "use.interconnect-saturation") | .status' "$T/x/findings.json")" ok \
	"the check ran"
is "$(jq -r '.checks[] | select(.id == "use.interconnect-saturation") | .summary' "$T/x/findings.json")" \
	"21.6k/s, 440 KiB/s, 1 sample" "a check's sentence through units: 21.6k/s, 440 KiB/s, 1 sample"
for want in '| context_switches | 21.6k/s |' '| throughput | 440 KiB/s |' '| queue_size | 0.0028 |' \
	'| inodes_used | 456k |' '| profiled | 1 sample |' '| await | 2.8 ms |'; do
	ok "report.md: $want" grep -qF "$want" "$md"
done
ok "report.md: a symbol column as code, not backslash-escaped" \
	grep -qF '| `__rmap_walk_file_[k]` | 1 | 1.44k |' "$md"
ok "report.md: a number cell in three significant digits" grep -qF '| `do_sys_open` | 3 | 0.25 |' "$md"
ok "report.md: a flame graph of one sample says so" \
	grep -qF 'Flame graph: 1 sample in 1 distinct stack.' "$md"
ok "report.md: its hottest frame as code" grep -qF '| `__rmap_walk_file_[k]` | 1 sample |' "$md"
ok "report.md: no backslash before an underscore anywhere" sh -c "! grep -qF '\\_' '$md'"
ok "report.html: the symbol as <code>" grep -qF '<code>__rmap_walk_file_[k]</code>' "$html"
ok "report.html: the rate" grep -qF '21.6k/s' "$html"
# report.html's text, its one script left out (its constants are code: E=1e-3)
perl -0pe 's{<script.*?</script>}{}gs' "$html" >"$T/page-text"
for f in "$md" "$T/page-text" "$T/terminal"; do
	ok "$(basename "$f"): no number in exponent notation" \
		sh -c "! grep -Eq '[0-9]e[+-][0-9]' '$f'"
	ok "$(basename "$f"): no \"1 samples\"" sh -c "! grep -q '[^0-9.]1 samples' '$f'"
done

done_testing
