#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# sonde fleet over a made-up fleet (build/fleet-gen: 12 hosts made from one
# real bundle, with findings, an outlier and slower latency histograms written
# down in a truth file): a row per host, the shared findings and the unique
# one, the outlier, the heat maps; an older bundle of a host, an extracted
# bundle, a hostile host name, a tampered bundle (what fleet reads is checked
# against the manifest), junk and a symlink; the outputs written atomically;
# bundles claiming a host's name dated in the future; bundle text on stderr;
# a '|' in a check id in fleet.md; memory per host with many findings; and
# the usage errors.
. tests/lib/tap.sh

GEN=${FLEET_GEN:-$TOP/build/fleet-gen}
[ -x "$GEN" ] || skip_all "no $GEN (make unit or make check builds it)"
for tool in jq tar xz sha256sum; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

# jqok FILTER FILE...: jq -e, quietly
jqok() {
	jq -e "$@" >/dev/null
}

T=$(mktemp -d /tmp/sonde-cli-fleet.XXXXXX)
trap 'rm -rf "$T"' EXIT
export TMPDIR="$T/tmp"
mkdir -p "$TMPDIR" "$T/run" "$T/tmpl" "$T/fleet" "$T/out"

# A real bundle as the template (BPF where the host allows it: the heat maps need it).
"$SONDE" run --window 1 --interval 0.5 --no-progress --no-drilldown --out "$T/run" \
	>/dev/null 2>&1
tar -xJf "$(ls "$T"/run/*.tar.xz)" -C "$T/tmpl"
# runqlat hooks every context switch: the cost model keeps it out of the first window
# and a drill-down runs it only on a saturated CPU. Its histogram for the template
# comes from a run that asks for the drill-down check that reads it.
if [ ! -s "$T/tmpl/raw/bpf/runqlat.json" ]; then
	mkdir -p "$T/rq" "$T/rqx"
	"$SONDE" run --window 1 --interval 0.5 --no-progress --no-drilldown \
		--check drilldown.cpu-why --out "$T/rq" >/dev/null 2>&1
	tar -xJf "$(ls "$T"/rq/*.tar.xz)" -C "$T/rqx" 2>/dev/null &&
		cp "$T/rqx/raw/bpf/runqlat.json" "$T/tmpl/raw/bpf/" 2>/dev/null
fi
ok "a real bundle to make the fleet from" test -s "$T/tmpl/findings.json"
"$GEN" "$T/tmpl" 12 "$T/fleet" "$T/truth" 2
is "$?" 0 "fleet-gen made 12 bundles"
is "$(ls "$T"/fleet/*/*.tar.xz | wc -l)" 12 "one bundle per host directory"

# repack NAME SRC-BUNDLE JQ-FILTER [MANIFEST-FILTER]: SRC with its findings.json changed
# (and its manifest by the second filter) and its manifest made to match again (a bundle
# that verifies), as $T/fleet/NAME/NAME.tar.xz
repack() {
	local x=$T/x-$1 sum size
	rm -rf "$x" && mkdir -p "$x" "$T/fleet/$1" && tar -xJf "$2" -C "$x" || return 1
	jq "$3" "$x/findings.json" >"$x/f" && mv "$x/f" "$x/findings.json"
	sum=$(sha256sum "$x/findings.json" | cut -d' ' -f1)
	size=$(stat -c %s "$x/findings.json")
	jq --arg s "$sum" --argjson n "$size" \
		'(.files[] | select(.path == "findings.json")) |= (.sha256 = $s | .size = $n) | '"${4:-.}" \
		"$x/manifest.json" >"$x/m" && mv "$x/m" "$x/manifest.json"
	tar -cJf "$T/fleet/$1/$1.tar.xz" -C "$x" .
}
B2=$(ls "$T"/fleet/fleet-0002/*.tar.xz)
repack older-0002 "$B2" '.window.start = "2000-01-01T00:00:00Z" | .verdict = "OLDER"'
repack hostile "$(ls "$T"/fleet/fleet-0004/*.tar.xz)" \
	'.host.hostname = "<script>alert(1)</script>|*x*" | .verdict = "<img src=x onerror=alert(1)>"'
# An extracted bundle, used as it is.
mkdir -p "$T/fleet/extracted-0011"
tar -xJf "$(ls "$T"/fleet/fleet-0011/*.tar.xz)" -C "$T/fleet/extracted-0011"
rm "$T"/fleet/fleet-0011/*.tar.xz
# Its run-queue histogram as a drill-down window records it (raw/drilldown/bpf/).
E=$T/fleet/extracted-0011
if [ -s "$E/raw/bpf/runqlat.json" ]; then
	mkdir -p "$E/raw/drilldown/bpf" && mv "$E/raw/bpf/runqlat.json" "$E/raw/drilldown/bpf/"
	jq '(.files[] | select(.path == "raw/bpf/runqlat.json")).path = "raw/drilldown/bpf/runqlat.json"' \
		"$E/manifest.json" >"$T/m" && mv "$T/m" "$E/manifest.json"
fi
# A tampered bundle, junk, and a symlink that is not followed.
mkdir -p "$T/fleet/bad"
rm -rf "$T/x" && mkdir "$T/x" && tar -xJf "$B2" -C "$T/x" &&
	jq '.host.hostname = "forged"' "$T/x/findings.json" >"$T/f" && mv "$T/f" "$T/x/findings.json" &&
	tar -cJf "$T/fleet/bad/tampered.tar.xz" -C "$T/x" .
printf 'not a bundle' >"$T/fleet/bad/junk.tar.xz"
mkdir -p "$T/elsewhere" && cp "$B2" "$T/elsewhere/" && ln -s "$T/elsewhere" "$T/fleet/link"

"$SONDE" fleet "$T/fleet" --out "$T/out" --json >"$T/fleet.json" 2>"$T/stderr"
is "$?" 0 "sonde fleet: exit 0 (some bundles refused, the others read)"
J=$T/fleet.json
is "$(jq -r .schema "$J")" sonde.fleet/1 "fleet.json's schema"
is "$(jq '.hosts | length' "$J")" 13 "a row per host: 12 made up and the hostile one"
is "$(jq .bundles "$J")" 14 "14 bundles read (the older one included, the extracted one too)"
is "$(jq -r '.hosts[] | select(.host == "fleet-0002") | .verdict' "$J")" \
	"made-up verdict of fleet-0002" "the latest bundle stands for its host"
is "$(jq -r '.hosts[] | select(.host == "fleet-0002") | .older_bundles' "$J")" 1 \
	"and the older one is counted"
is "$(jq -r '.hosts[] | select(.host == "fleet-0011") | .bundle' "$J")" \
	"$T/fleet/extracted-0011" "an extracted bundle is read as it is"
is "$(jq '.refused | length' "$J")" 2 "two bundles refused"
ok "the tampered one (findings.json edited, the manifest not), naming the member" \
	jqok '.refused[] | select(.bundle | endswith("tampered.tar.xz")) | .reason | test("findings.json: size or sha256 differs from the manifest")' "$J"
ok "the forged host is not in the summary" test -z "$(jq -r '.hosts[].host' "$J" | grep -x forged)"
ok "the refusals are said on stderr, one line each" \
	test "$(grep -c "^sonde: $T/fleet/bad/" "$T/stderr")" = 2
ok "the symlinked directory is not followed" test -z "$(grep -F "$T/fleet/link" "$J")"

# Against the truth: every made-up finding on its host, the shared ones, the unique one.
bad=0
while read -r what host a b; do
	[ "$what" = finding ] || continue
	got=$(jq -r --arg h "$host" --arg c "$a" \
		'.hosts[] | select(.host == $h) | .findings[] | select(.check == $c) | .severity' "$J")
	[ "$got" = "$b" ] || { diag "finding $host $a: got '$got', want $b"; bad=$((bad + 1)); }
done <"$T/truth"
is "$bad" 0 "every made-up finding is on its host with its severity"
for c in use.cpu-saturation use.disk-saturation; do
	want=$(awk -v c="$c" '$1 == "finding" && $3 == c' "$T/truth" | wc -l)
	is "$(jq --arg c "$c" '.shared_findings[] | select(.check == $c) | .hosts' "$J")" "$want" \
		"$c is shared by its $want hosts"
done
is "$(jq -c '[.unique_findings[] | [.host, .check]]' "$J")" '[["fleet-0005","use.fd-errors"]]' \
	"the one unique finding, on its host"

# The outlier: found, and alone (the other hosts are within 2% of each other).
read -r _ ohost ocheck ometric < <(grep '^outlier' "$T/truth")
ok "the outlier is found: $ohost $ocheck $ometric" \
	jqok --arg h "$ohost" --arg c "$ocheck" --arg m "$ometric" \
	'.outliers[] | select(.host == $h and .check == $c and .metric == $m and .z > 3.5)' "$J"
is "$(jq '[.outliers[] | select(.host != "'"$ohost"'")] | length' "$J")" 0 \
	"no other host stands out (noise of 2% is not an outlier)"

# Heat maps: each host's histogram, the fleet's the sum, the slower hosts slower.
if [ "$(jq -r .status "$T/tmpl/raw/bpf/runqlat.json" 2>/dev/null)" = ok ]; then
	sum=$(jq '[.heatmaps.runqlat.hosts[] | select(.counts) | .counts] | transpose | map(add)' "$J")
	is "$(jq -c . <<<"$sum")" "$(jq -c .heatmaps.runqlat.fleet "$J")" \
		"the fleet's run-queue histogram is the hosts' merged"
	ok "a host whose histogram came from its drill-down window is in the heat map" \
		jqok '.heatmaps.runqlat.hosts[] | select(.host == "fleet-0011") | .counts' "$J"
	p0=$(jq '.heatmaps.runqlat.hosts[] | select(.host == "fleet-0000") | .p99_us' "$J")
	p3=$(jq '.heatmaps.runqlat.hosts[] | select(.host == "fleet-0003") | .p99_us' "$J")
	ok "a host shifted 3 buckets up has a slower p99 ($p3 > $p0 us)" \
		awk -v a="$p3" -v b="$p0" 'BEGIN { exit !(a > b * 4) }'
	H=$T/out/fleet.html
	ok "the HTML draws the heat maps" test "$(grep -o '<figure class="heatmap">' "$H" | wc -l)" = 2
	ok "cells with a tooltip naming host, bucket and count" \
		grep -qE '<rect x="[0-9.]+" y="[0-9.]+" width="[0-9.]+" height="14" fill="#[0-9a-f]{6}"><title>fleet-0003 · [0-9.]+-[0-9.]+ (us|ms|s): [0-9]+ waits \(' "$H"
	ok "the first column is the fleet's" grep -q '<title>(fleet) · ' "$H"
else
	skip "heat maps" "the template bundle has no runqlat histogram (BPF unavailable here)"
fi

# The outputs: the three files, a page that loads nothing and runs nothing, data as text.
for f in fleet.md fleet.html fleet.json; do
	ok "$f written" test -s "$T/out/$f"
done
cmp -s "$J" "$T/out/fleet.json"
is "$?" 0 "--json prints what fleet.json holds"
H=$T/out/fleet.html
ok "a strict Content-Security-Policy, no script at all" \
	sh -c "grep -q \"default-src 'none'\" '$H' && ! grep -q '<script' '$H'"
ok "the hostile host name is text in the page" \
	grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;|*x*' "$H"
ok "the hostile verdict too" grep -qF '&lt;img src=x onerror=alert(1)&gt;' "$H"
ok "no element made from data" test -z "$(grep -E '<img' "$H")"
if command -v xmllint >/dev/null; then
	perl -ne 'if (/(<svg class="heatmap-svg".*?<\/svg>)/) { print "$1\n"; exit }' "$H" \
		>"$T/map.svg"
	if [ -s "$T/map.svg" ]; then
		xmllint --noout "$T/map.svg" 2>"$T/xml.err"
		is "$?" 0 "the heat map's SVG is well-formed XML$(head -c 200 "$T/xml.err")"
	else
		skip "the heat map's SVG parses" "no heat map in this fleet"
	fi
fi
ok "the Markdown escapes the hostile name" grep -qF '\<script>alert(1)\</script>\|\*x\*' \
	"$T/out/fleet.md"
ok "the Markdown's heat map is a table" grep -q '^| run-queue latency' "$T/out/fleet.md"
is "$(ls -A "$T/out" | grep -c '^\.')" 0 "no temporary left in --out"
is "$(ls -A "$TMPDIR" | wc -l)" 0 "no private directory left behind"

# The terminal summary, --md, --fail-on.
"$SONDE" fleet "$T/fleet" --out "$T/out" >"$T/summary" 2>/dev/null
ok "the summary counts hosts by their worst finding" grep -q '^Hosts: [0-9]* crit, ' "$T/summary"
ok "and names the outlier" grep -q "^  $ohost $ocheck $ometric = " "$T/summary"
ok "and what it could not read" grep -q "^Not read:" "$T/summary"
"$SONDE" fleet "$T/fleet" --out "$T/out" --md 2>/dev/null | cmp -s - "$T/out/fleet.md"
is "$?" 0 "--md prints fleet.md"
"$SONDE" fleet "$T/fleet" --out "$T/out" --fail-on crit >/dev/null 2>&1
is "$?" 3 "--fail-on crit: a host has a critical finding"
"$SONDE" fleet "$T/fleet/fleet-0002" "$T/fleet/fleet-0004" --out "$T/out" --fail-on crit \
	>/dev/null 2>&1
is "$?" 0 "--fail-on crit over two hosts without one: exit 0"

# Bundles that claim fleet-0000's name (crit) with a window in the future: another
# machine's (its own host id) and one with fleet-0000's host id copied. Neither takes
# fleet-0000's row nor hides its crit from --fail-on; the other machine is a row of its
# own, the name a conflict, both bundles listed as not trusted.
B0=$(ls "$T"/fleet/fleet-0000/*.tar.xz)
ID0=$(tar -xOJf "$B0" manifest.json | jq -r .host.host_id)
future='.host.hostname = "fleet-0000" | .window.start = "2999-01-01T00:00:00Z" |
	.window.end = "2999-01-01T00:00:10Z" | .worst = "ok" | .findings = [] | .verdict = "all fine"'
repack forged-other "$(ls "$T"/fleet/fleet-0001/*.tar.xz)" "$future" '.host.hostname = "fleet-0000"'
repack forged-id "$(ls "$T"/fleet/fleet-0001/*.tar.xz)" "$future" \
	".host.hostname = \"fleet-0000\" | .host.host_id = \"$ID0\""
mkdir -p "$T/forge" "$T/out-forge"
mv "$T/fleet/forged-other" "$T/fleet/forged-id" "$T/forge/"
"$SONDE" fleet "$T/fleet/fleet-0000" "$T/forge" --out "$T/out-forge" --json --fail-on crit \
	>"$T/forge.json" 2>"$T/forge.err"
is "$?" 3 "--fail-on crit: fleet-0000's crit stands against bundles dated in the future"
is "$(jq -r --arg id "$ID0" '.hosts[] | select(.host == "fleet-0000" and .host_id == $id) |
	.worst + " " + (.bundle | sub(".*/"; ""))' "$T/forge.json")" "crit $(basename "$B0")" \
	"fleet-0000 (its host id) is still its own crit bundle"
is "$(jq '[.hosts[] | select(.host == "fleet-0000")] | length' "$T/forge.json")" 2 \
	"the other machine claiming the name is a row of its own"
is "$(jq -c '[.conflicts[] | .host, (.host_ids | length)]' "$T/forge.json")" '["fleet-0000",2]' \
	"and the name is a conflict of two host ids"
is "$(jq -r '[.future_bundles[].bundle | sub(".*/"; "")] | sort | join(" ")' "$T/forge.json")" \
	"forged-id.tar.xz forged-other.tar.xz" "both bundles dated in the future are listed"
ok "--fail-on names the host by its host id" \
	grep -q -- "--fail-on crit: host fleet-0000 (host id $ID0) is crit" "$T/forge.err"
ok "fleet.md shows the conflict and the future window" \
	sh -c "grep -q 'Host names claimed by several machines' '$T/out-forge/fleet.md' &&
		grep -q 'in the future: not trusted' '$T/out-forge/fleet.md'"

# Bundle text on stderr (a refused bundle's file name, --fail-on's host and verdict)
# is cleaned as the terminal summary is: no ESC, C1 control or bidi override gets through.
mkdir -p "$T/evil" "$T/out-evil"
repack evil-0000 "$(ls "$T"/fleet/fleet-0000/*.tar.xz)" \
	'.verdict = "crit\u009b31m\u202eevil\u001b]0;t\u0007" |
	 .findings += [{ "check": "use.x|forged|cell", "severity": "warn", "summary": "s" }]'
mv "$T/fleet/evil-0000" "$T/evil/"
printf 'junk' >"$T/evil/"$'e\e]0;title\a\xc2\x9b31m\xe2\x80\xae.tar.xz'
"$SONDE" fleet "$T/evil" --out "$T/out-evil" --fail-on crit >/dev/null 2>"$T/evil.err"
is "$?" 3 "--fail-on crit over a verdict with terminal controls: exit 3"
ok "the refusal and the failure are said" \
	sh -c "grep -q '^sonde: $T/evil/e.*: ' '$T/evil.err' && grep -q -- '--fail-on crit: host fleet-0000' '$T/evil.err'"
ok "no ESC, C1 control or bidi override on stderr" \
	perl -ne 'BEGIN { $bad = 0 } $bad = 1 if /\x1b|\x07|\xc2[\x80-\x9f]|\xe2\x80[\xaa-\xae]/; END { exit $bad }' \
	"$T/evil.err"
# A '|' in a check id, which fleet.md shows as a code span in a table: escaped
# there too (GitHub reads "\|" in a cell's code span as '|'), or it makes a column.
row=$(grep -F 'forged' "$T/out-evil/fleet.md" | head -1)
is "$(perl -ne 'print scalar(() = /(?<!\\)\|/g)' <<<"$row")" 5 \
	"the check id with '|' stays in its cell: 4 cells ($row)"

# Memory grows with the hosts, not with what their bundles say: extracted bundles of
# hosts with 256 findings of 300 characters each (the most sonde fleet keeps), read
# 50 and 400 at a time. The largest process's peak RSS may grow by far less than a
# host's findings.json per host (each is 100 KiB; sonde fleet kept about 200 KiB a host
# of them, its summaries and its share of fleet.json, in memory).
# many N DIR: N extracted bundles "many-NNN" with 256 findings each, that verify
many() {
	perl -MDigest::SHA=sha256_hex -e '
		my ($n, $dir) = @ARGV;
		for my $i (0 .. $n - 1) {
			my $h = sprintf("many-%03d", $i);
			my @f = map { sprintf(q({"check":"use.check-%03d","severity":"%s","summary":"%s"}),
				$_, $_ % 2 ? "crit" : "warn", ("finding $_ of $h " . "x" x 300) =~ s/^(.{300}).*/$1/r) } 0 .. 255;
			my $doc = qq({"schema":"sonde.findings/1","host":{"hostname":"$h"},) .
				qq("window":{"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:10Z"},) .
				qq("verdict":"v","worst":"crit","findings":[) . join(",", @f) . qq(],) .
				qq("checks":[{"id":"use.cpu-utilization","metrics":[{"name":"busy_pct","value":$i}]}]});
			mkdir "$dir/$h" or die;
			open(my $o, ">", "$dir/$h/findings.json") or die; print $o $doc; close($o);
			open($o, ">", "$dir/$h/manifest.json") or die;
			printf $o q({"schema":"sonde.manifest/1","host":{"hostname":"%s"},"files":[{"path":"findings.json","size":%d,"sha256":"%s"}]}),
				$h, length($doc), sha256_hex($doc);
			close($o);
		}' "$1" "$2"
}
if [ -x /usr/bin/time ]; then
	mkdir -p "$T/many50" "$T/many400" "$T/out-many"
	many 50 "$T/many50" && many 400 "$T/many400"
	for n in 50 400; do
		/usr/bin/time -f %M -o "$T/rss$n" "$SONDE" fleet "$T/many$n" --out "$T/out-many" \
			>/dev/null 2>"$T/many.err"
		is "$?" 0 "$n hosts of 256 findings each: read"
	done
	is "$(jq '.hosts | length' "$T/out-many/fleet.json")" 400 "400 hosts in fleet.json"
	is "$(jq '[.hosts[].findings | length] | add' "$T/out-many/fleet.json")" 102400 \
		"with all their findings"
	per=$(( ($(tail -1 "$T/rss400") - $(tail -1 "$T/rss50")) / 350 ))
	ok "peak RSS grows by $per KiB a host (under 20 KiB)" test "$per" -lt 20
else
	skip "memory per host" "GNU time is not installed (make deps)"
fi

# A DIR's bundle files are those named as sonde reads them (bundle/bundle.h):
# .txz and .tzst as well as .tar.xz, .tar.gz, .tgz and .tar.zst; a plain .tar
# (the reader refuses an uncompressed tar) and a hidden name are left alone.
mkdir -p "$T/names" "$T/out-names" "$T/x-names"
cp "$B2" "$T/names/a.txz"
tar -xJf "$B2" -C "$T/x-names" && tar -cf - -C "$T/x-names" . | zstd -q >"$T/names/b.tzst"
tar -cf "$T/names/c.tar" -C "$T/x-names" .
cp "$B2" "$T/names/.d.tar.xz"
"$SONDE" fleet "$T/names" --out "$T/out-names" --json >"$T/names.json" 2>"$T/names.err"
is "$?" 0 "a DIR of .txz and .tzst bundles: read"
is "$(jq .bundles "$T/names.json") $(jq '.refused | length' "$T/names.json")" "2 0" \
	"both read, none refused: not the .tar, not the hidden one"

# Nothing readable, and usage errors.
"$SONDE" fleet "$T/fleet/bad" --out "$T/out" >/dev/null 2>"$T/err"
is "$?" 1 "only refused bundles: exit 1"
ok "it says so" grep -q "none of the 2 bundles could be read" "$T/err"
for args in "" "$T/nothing-here" "$T/tmpl/raw --json --md" "$T/fleet --out $T/nodir"; do
	"$SONDE" fleet $args >/dev/null 2>"$T/err"
	is "$?" 2 "sonde fleet $args: usage error"
	is "$(wc -l <"$T/err")" 1 "one line: $(cat "$T/err")"
done

done_testing
