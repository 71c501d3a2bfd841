#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde show and sonde list, read by a person: full resource names, the
# run's matrix and findings in its colours, an error that names the bundle
# and the member, a check's --set arguments, and columns as wide as their
# longest value (a long check id from --checks).
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
T=$(mktemp -d /tmp/sonde-showlist.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR=$T/tmp
mkdir -p "$TMPDIR" "$T/out" "$T/checks/use"

"$SONDE" analyze tests/checks/use.storage-controller-utilization/virtio --out "$T/out" >/dev/null 2>&1
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "a bundle" test -f "$B"
ok "show: resource names in full" sh -c "'$SONDE' show '$B' | grep -q '^  storage-controller  '"

# show draws the matrix and the findings with the run's terminal renderer: a
# case with two findings (the first is the run's verdict, the second its
# "other findings"), analyzed into a bundle, then shown
mkdir -p "$T/hog"
"$SONDE" analyze tests/checks/use.cpu-saturation/hog --out "$T/hog" >"$T/analyze.txt" 2>&1
H=$(ls "$T"/hog/sonde-*.tar.xz 2>/dev/null | head -1)
"$SONDE" show "$H" >"$T/show.txt" 2>&1
sed -n '/^USE /,/^$/{/^$/d;p}' "$T/analyze.txt" >"$T/analyze.matrix"
sed -n '/^USE /,/^$/{/^$/d;p}' "$T/show.txt" >"$T/show.matrix"
ok "show: the USE matrix is the one the run printed" \
	sh -c "[ -s '$T/show.matrix' ] && cmp '$T/analyze.matrix' '$T/show.matrix'"
grep -E '^  [0-9]+\. ' "$T/analyze.txt" >"$T/analyze.findings"
ok "show: and the run's other findings, line for line" \
	sh -c "[ -s '$T/analyze.findings' ] && grep -qxFf '$T/analyze.findings' '$T/show.txt'"
# on a terminal (a pty from script(1)), in colour as the run's summary is
if command -v script >/dev/null; then
	TERM=xterm NO_COLOR= script -qec "'$SONDE' show '$H'" /dev/null >"$T/tty.txt" 2>&1
	ok "show on a terminal: statuses in the run's colours" \
		grep -qF "$(printf '\033[1;31mcrit')" "$T/tty.txt"
	NO_COLOR=1 TERM=xterm script -qec "'$SONDE' show '$H'" /dev/null >"$T/tty.txt" 2>&1
	ok "show on a terminal with NO_COLOR: none" \
		sh -c "grep -q crit '$T/tty.txt' && ! grep -qF \"$(printf '\033[')\" '$T/tty.txt'"
else
	skip "no script(1) to give show a terminal" 2
fi

err=$("$SONDE" show "$B" raw/nosuch 2>&1 >/dev/null); rc=$?
is "$rc" 1 "show: a missing member fails"
ok "show: the error names the bundle and the member" \
	grep -qF "sonde: $B: raw/nosuch: not in the bundle" <<<"$err"

out=$("$SONDE" explain use.cpu-saturation)
ok "explain: the check's --set arguments, with their defaults" \
	grep -qE '^  warn_runnable +1\.5 ' <<<"$out"
"$SONDE" explain nosuch >/dev/null 2>&1
is "$?" 2 "explain of an unknown check is a usage error"

cat >"$T/checks/use/a-check-with-a-rather-long-identifier-indeed.lua" <<'EOF2'
--- a check with a long id
return {
  id = "use.a-check-with-a-rather-long-identifier-indeed", title = "long",
  methodology = "use", resource = "cpu", metric = "errors",
  tags = { "default" }, collect = {},
  run = function(ctx) ctx:metric("x", 1) end,
}
EOF2
"$SONDE" list --checks "$T/checks" --no-bpf --no-perf >"$T/list.txt" 2>&1
col() { awk -v id="$1" '$1 == id { print index($0, $2) }' "$T/list.txt"; }
long=$(col use.a-check-with-a-rather-long-identifier-indeed)
ok "list: the long check is listed" test -n "$long"
is "$long" "$(col use.cpu-saturation)" "list: a long check id keeps the columns aligned"

done_testing
