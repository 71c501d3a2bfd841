#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# ctx:flamegraph end to end: a check from a --checks DIR of this test (not a
# shipped check) turns a fixed folded profile, hostile frame names included,
# into flame graphs; `sonde analyze` over a committed capture tree must give
# the expected findings.json evidence, a report.md table pointing to
# report.html, and a report.html whose only script is sonde's own (allowed by
# its hash), with no handler attribute from data and an SVG that parses.
. tests/lib/tap.sh

for tool in jq tar xz perl xmllint; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

D=tests/cli/flamegraph
CASE=tests/checks/use.cpu-saturation/hog
T=$(mktemp -d /tmp/sonde-flamegraph.XXXXXX)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/out" "$T/x"

"$SONDE" analyze "$CASE" --checks "$D/checks" --check workload.signal-what -o "$T/out" \
	>"$T/stdout" 2>"$T/stderr"
is "$?" 0 "analyze with the test check runs"
B=$(ls "$T"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "a bundle is written" test -f "$B"
tar -xJf "$B" -C "$T/x" findings.json report.md report.html 2>/dev/null
ok "it holds the three reports" test -s "$T/x/report.html" -a -s "$T/x/report.md" \
	-a -s "$T/x/findings.json"

# ---- findings.json ----
is "$(jq -r '.checks[] | select(.id == "workload.signal-what") | .status' "$T/x/findings.json")" \
	ok "the check ran without error"
jq -S '[.checks[] | select(.id == "workload.signal-what") | .evidence[]
	| .folded |= map(if . == ("bash;" + ("x" * 253) + "... 80") then "LONG 80" else . end)]' \
	"$T/x/findings.json" >"$T/got.json"
jq -S . "$D/expected-evidence.json" >"$T/want.json"
ok "findings.json evidence is the expected one (duplicates merged, names as given, long \
name cut, invalid UTF-8 replaced)" diff -u "$T/want.json" "$T/got.json"

# ---- report.md ----
md=$T/x/report.md
ok "report.md says where the graph is" grep -q "interactive graph (hover, zoom, search) is in report.html" "$md"
ok "report.md: hottest frame table, the frame as code" \
	grep -qF '| `sonde_test_spin` | 5k samples | 73.9% | 73.9% |' "$md"
ok "report.md: largest stacks, leaf last" \
	grep -q '^| `bash` → `main` → `do_work` → `sonde_test_spin` | 5k samples | 73.9% |$' "$md"
ok "report.md: a hostile name is a code span (no HTML there)" \
	grep -qF '| `<script>alert(1)</script>` | 300 samples |' "$md"
ok "report.md: time units" grep -qF '| `vfs_read` | 2 s | 99.9% | 99.9% |' "$md"
is "$(grep -c '^Flame graph: ' "$md")" 2 "report.md: one summary per graph"
ok "report.md: no HTML comment (report.html is not made from it)" sh -c "! grep -q '<!--' '$md'"

# ---- report.html ----
html=$T/x/report.html
is "$(grep -o -i '<script' "$html" | wc -l)" 1 "report.html: exactly one script element"
perl -0ne '
	my ($csp) = /script-src (\x27sha256-[^\x27]+\x27)/ or exit 1;
	my ($js) = /<script>(.*?)<\/script>/s or exit 1;
	use Digest::SHA qw(sha256_base64);
	exit(($csp eq "\x27sha256-" . sha256_base64($js) . "=\x27") ? 0 : 1);
' "$html"
is "$?" 0 "report.html: the CSP allows that script by its hash, nothing else"
ok "report.html: nothing loaded from anywhere" grep -q "default-src 'none'" "$html"
perl -0ne '
	my $bad = 0;
	while (/<([a-zA-Z][^<>]*)>/g) {
		my $tag = my $orig = $1;
		$tag =~ s/"[^"]*"//g;  # attribute values: text, not names
		if ($tag =~ /\son[a-z]*\s*=/i) { print "# handler: <$orig>\n"; $bad++ }
	}
	exit($bad ? 1 : 0);
' "$html"
is "$?" 0 "report.html: no event handler attribute anywhere"
ok "report.html: script names only as text" grep -qF '<title>&lt;script&gt;alert(1)&lt;/script&gt;</title>' "$html"
ok "report.html: quotes in names cannot close an attribute" \
	grep -qF '<title>&quot;onload=&quot;alert(1)</title>' "$html"
ok "report.html: no CDATA end from data" sh -c "! grep -qF ']]>' '$html'"
is "$(grep -c '<figure class="fg">' "$html")" 2 "report.html: both graphs drawn"
perl -0ne 'my $i = 0; while (/(<svg.*?<\/svg>)/sg) { open(my $f, ">", "'"$T"'/svg" . $i++ . ".xml"); print $f $1 }' "$html"
for f in "$T"/svg0.xml "$T"/svg1.xml; do
	ok "report.html: $(basename "$f") parses as XML" xmllint --noout "$f"
done
ok "report.html: widths follow counts (sonde_test_spin: 5000/6770 of 1200 = 886.26)" \
	grep -q '<title>sonde_test_spin</title><rect x="[0-9.]*" y="[0-9]*" width="886\.[23]"' "$html"

# The script itself, over a minimal DOM (node, where installed: no browser here).
if command -v node >/dev/null; then
	ok "report.html's script: hover, zoom, reset, search behave" \
		node "$D/script-check.js" "$html"
else
	skip "report.html's script behaviour" "node is not installed"
fi

# ---- bad input: one clear line, the run goes on ----
mkdir -p "$T/bad/workload"
cat >"$T/bad/workload/signal-what.lua" <<'EOF'
--- Test check: a folded line without a count.
return {
  id = "workload.signal-what", title = "bad folded", methodology = "workload",
  resource = "signal", metric = "what", tags = { "proc" }, collect = {},
  run = function(ctx) ctx:flamegraph{ folded = "a;b 3\na;b;c\n" } end,
}
EOF
rm -rf "$T/out2" && mkdir -p "$T/out2"
"$SONDE" analyze "$CASE" --checks "$T/bad" --check workload.signal-what -o "$T/out2" --json \
	>"$T/bad.json" 2>/dev/null
jq -r '.checks[] | select(.id == "workload.signal-what") | .status + ": " + .error' \
	"$T/bad.json" >"$T/bad.txt"
ok "a bad folded line is the check's error, naming the line ($(cat "$T/bad.txt"))" \
	grep -q '^error: .*flamegraph: line 2: no count after the stack' "$T/bad.txt"

done_testing
