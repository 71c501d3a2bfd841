#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde show and sonde list, read by a person: full resource names, an error
# that names the bundle and the member, a check's --set arguments, and
# columns as wide as their longest value (a long check id from --checks).
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
