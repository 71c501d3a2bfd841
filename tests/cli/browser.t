#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# report.html in a real browser (Debian's chromium, headless, driven over the
# DevTools pipe by tests/lib/cdp.py): a 10 s run of this host, then the page
# at 1280 px is at most 6,000 px tall, the verdict and the USE matrix start
# on the first screen, the contents stay in view when scrolled, nothing is
# logged on the console (a CSP violation would be), nothing is requested
# beyond the file, the dark scheme changes the page's colours, and print
# opens every fold. The
# screenshots (whole page, and the first screen) are kept in
# $SONDE_TEST_OUT/browser (default build/test-output/browser).
. tests/lib/tap.sh

for tool in jq tar xz python3; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
command -v chromium >/dev/null || skip_all "chromium is not installed (make deps)"

OUT=${SONDE_TEST_OUT:-build/test-output}/browser
T=$(mktemp -d /tmp/sonde-browser.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$OUT" "$T/out" "$T/x"

# The browser first, on a page of nothing: if it cannot run here, say why and skip.
echo '<!DOCTYPE html><title>t</title><p>t' >"$T/probe.html"
if ! python3 tests/lib/cdp.py "$T/probe.html" "$T/probe.png" 1280 >/dev/null 2>"$T/probe.err"; then
	skip_all "chromium cannot run here: $(tr '\n' ' ' <"$T/probe.err")"
fi

"$SONDE" run -w 10 -o "$T/out" >/dev/null 2>"$T/stderr"
is "$?" 0 "a 10 s run"
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
tar -xJf "$B" -C "$T/x" report.html 2>/dev/null
ok "its bundle holds report.html" test -s "$T/x/report.html"

python3 tests/lib/cdp.py "$T/x/report.html" "$OUT/report.png" 1280 light >"$T/light.json" \
	2>"$T/cdp.err"
is "$?" 0 "chromium loads the page" || sed 's/^/#   /' "$T/cdp.err"
cp "$T/x/report.html" "$OUT/report.html"
cp "$T/light.json" "$OUT/light.json"
diag "page: $(jq -c '{h, top, toc}' "$T/light.json"); screenshots in $OUT"

h=$(jq '.h' "$T/light.json")
ok "at most 6000 px tall at 1280 px (got $h)" test "${h:-99999}" -le 6000
ok "the verdict and the USE matrix start on the first screen (800 px)" \
	jq -e '.top.verdict < 800 and .top["use-matrix"] < 800' "$T/light.json"
ok "the findings are linked from the first screen (contents and the verdict's list)" \
	grep -q '<li class="toc3"><a href="#' "$T/x/report.html"
ok "the contents stay in view when the page is scrolled" jq -e '.toc == 0' "$T/light.json"
is "$(jq -r '.console | join(" | ")' "$T/light.json")" "" "nothing on the console"
is "$(jq -r '.requests | join(" ")' "$T/light.json")" "" "no request beyond the page itself"
ok "a whole-page screenshot" test -s "$OUT/report.png"
ok "and one of the first screen" test -s "$OUT/report-first.png"

python3 tests/lib/cdp.py "$T/x/report.html" "$OUT/report-dark.png" 1280 dark >"$T/dark.json" \
	2>>"$T/cdp.err"
ok "prefers-color-scheme dark: another background" \
	sh -c "test \"\$(jq -r .bg '$T/dark.json')\" != \"\$(jq -r .bg '$T/light.json')\""
is "$(jq -r '.console | join(" | ")' "$T/dark.json")" "" "dark: nothing on the console"

python3 tests/lib/cdp.py "$T/x/report.html" "$OUT/report-print.png" 1280 print >"$T/print.json" \
	2>>"$T/cdp.err"
ok "print stylesheet: every fold prints open (the page is taller than on screen)" \
	sh -c "test \$(jq .h '$T/print.json') -gt \$(jq .h '$T/light.json')"

done_testing
