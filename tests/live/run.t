#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: one short `sonde run` on this host. The bundle is complete and private
# (mode 0600), the manifest matches what is in the archive byte for byte,
# findings.json has the documented shape, the HTML has no script, and
# `sonde analyze` over the extracted bundle reproduces the run's verdicts.
. tests/lib/tap.sh

for tool in jq tar xz sha256sum; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

T=$(mktemp -d /tmp/sonde-live-run.XXXXXX)
cleanup() {
	rm -rf "$T"
}
trap cleanup EXIT

# jqok NAME FILTER FILE: passes when FILTER is true (jq -e) on FILE
jq_true() {
	jq -e "$1" "$2" >/dev/null 2>&1
}
jqok() {
	ok "$1" jq_true "$2" "$3"
}

mkdir "$T/out" "$T/x"
"$SONDE" run --window 2 --out "$T/out" --no-progress >"$T/stdout" 2>"$T/stderr"
rc=$?
is "$rc" 0 "sonde run --window 2 exits 0"
[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/stderr"

shopt -s nullglob
bundles=("$T"/out/sonde-*.tar.xz)
shopt -u nullglob
is "${#bundles[@]}" 1 "exactly one sonde-*.tar.xz in --out"
others=$(find "$T/out" -mindepth 1 ! -name 'sonde-*.tar.xz' | wc -l)
is "$others" 0 "nothing else left in --out (no staging directory)"
if [ "${#bundles[@]}" -ne 1 ]; then
	diag "cannot go on without a bundle; stdout:"
	sed 's/^/#   /' "$T/stdout"
	done_testing
	exit
fi
B=${bundles[0]}
is "$(stat -c %a "$B")" 600 "bundle has mode 0600"
ok "stdout names the bundle" grep -qF "Bundle: $B" "$T/stdout"

tar -tJf "$B" >"$T/list" 2>"$T/tar.err"
is "$?" 0 "tar -tJf reads the bundle"
for f in manifest.json findings.json report.md report.html; do
	ok "bundle lists $f" grep -qx "$f" "$T/list"
done
ok "bundle lists raw/*.cap" grep -qE '^raw/[^/]+\.cap$' "$T/list"
ok "bundle lists raw/proc.stat.cap" grep -qx 'raw/proc.stat.cap' "$T/list"
bad_names=$(grep -cE '^/|(^|/)\.\.(/|$)' "$T/list")
is "$bad_names" 0 "no absolute or .. member names"

tar -xJf "$B" -C "$T/x" 2>>"$T/tar.err"
is "$?" 0 "tar -xJf extracts the bundle"
X=$T/x
M=$X/manifest.json
F=$X/findings.json

# ---- manifest: every file, its size and sha256; nothing missing, nothing extra ----
jqok "manifest.json has schema sonde.manifest/1" '.schema == "sonde.manifest/1"' "$M"
jqok "manifest.files is a non-empty array" '(.files | type) == "array" and (.files | length) > 0' "$M"
mismatch=0
while IFS=$'\t' read -r path size sum; do
	if [ ! -f "$X/$path" ]; then
		diag "listed but missing: $path"
		mismatch=$((mismatch + 1))
		continue
	fi
	got_size=$(stat -c %s "$X/$path")
	got_sum=$(sha256sum "$X/$path" | cut -d' ' -f1)
	if [ "$got_size" != "$size" ] || [ "$got_sum" != "$sum" ]; then
		diag "$path: size $got_size (manifest $size), sha256 $got_sum (manifest $sum)"
		mismatch=$((mismatch + 1))
	fi
done < <(jq -r '.files[] | [.path, (.size | tostring), .sha256] | @tsv' "$M")
is "$mismatch" 0 "every manifest entry has the size and sha256 given"
(cd "$X" && find . -type f ! -path ./manifest.json | sed 's|^\./||' | sort) >"$T/on-disk"
jq -r '.files[].path' "$M" | sort >"$T/in-manifest"
extra=$(comm -23 "$T/on-disk" "$T/in-manifest" | tr '\n' ' ')
missing=$(comm -13 "$T/on-disk" "$T/in-manifest" | tr '\n' ' ')
is "$extra" "" "no file in the bundle is missing from the manifest"
is "$missing" "" "no manifest entry is missing from the bundle"
is "$(jq -r '.files[].path' "$M" | sort | uniq -d | wc -l)" 0 "no path listed twice in the manifest"
ok "manifest does not list itself" sh -c "! jq -e '.files[] | select(.path == \"manifest.json\")' '$M' >/dev/null"

# ---- findings.json shape ----
NPROC=$(nproc)
jqok "findings.json: .schema == sonde.findings/1" '.schema == "sonde.findings/1"' "$F"
jqok "findings.json: .host.cpus == nproc ($NPROC)" ".host.cpus == $NPROC" "$F"
jqok "findings.json: .window.samples >= 3" '.window.samples >= 3' "$F"
jqok "findings.json: .window.partial == false" '.window.partial == false' "$F"
jqok "findings.json: .window.seconds within [2, 3)" '.window.seconds >= 2 and .window.seconds < 3' "$F"
jqok "findings.json: .checks is a non-empty array" '(.checks | type) == "array" and (.checks | length) > 0' "$F"
jqok "findings.json: every check has id, a known status and a metrics array" '
	all(.checks[];
	    (.id | type) == "string" and (.id | length) > 0
	    and (.status | IN("ok", "warn", "crit", "skip", "error", "unknown"))
	    and (.metrics | type) == "array")' "$F"
jqok "findings.json: check ids are unique" '[.checks[].id] | length == (unique | length)' "$F"
jqok "findings.json: every metric has a name and a numeric value" '
	all(.checks[].metrics[]; (.name | type) == "string" and (.value | type) == "number")' "$F"
jqok "findings.json: .use_matrix has exactly the resources of methodologies/use.lua" '
	(.use_matrix | keys | sort) == (["cpu", "memory", "disk", "network", "storage-controller", "network-controller", "fd", "task", "cgroup", "interconnect", "filesystem", "swap", "kernel-mutex", "user-mutex"] | sort)' "$F"
jqok "findings.json: every USE resource has utilization, saturation and errors with a status" '
	all(.use_matrix[];
	    all(.utilization, .saturation, .errors; type == "object" and (.status | type) == "string"))' "$F"
jqok "findings.json: .use_matrix_instances rows name a matrix resource, an instance and a status" '
	(.use_matrix | keys) as $res
	| (.use_matrix_instances | type) == "array"
	and all(.use_matrix_instances[];
		(.resource | IN($res[])) and (.instance | type) == "string" and (.instance | length) > 0
		and (.status | IN("ok", "warn", "crit", "n/a")))' "$F"
jqok "findings.json: each instance cell is null, n/a, or a check metric with a numeric value" '
	all(.use_matrix_instances[]; all(.utilization, .saturation, .errors;
		. == null or .status == "n/a"
		or ((.status | IN("ok", "warn", "crit")) and (.check | type) == "string"
		    and (.metric | type) == "string" and (.value | type) == "number")))' "$F"
jqok "findings.json: an instance row has at least one cell, and its status is the worst of them (n/a: all its cells are)" '
	def rank: {"crit": 5, "warn": 4, "error": 3, "unknown": 2, "ok": 1, "skip": 0, "n/a": 0}[.];
	all(.use_matrix_instances[];
		[.utilization, .saturation, .errors | select(. != null and .status != "n/a") | .status | rank]
		as $r | if .status == "n/a"
			then ($r | length) == 0 and ([.utilization, .saturation, .errors | select(. != null)] | length) > 0
			else ($r | length) > 0 and ($r | max) == (.status | rank) end)' "$F"
jqok "findings.json: no resource cell is better than one of its instances" '
	def rank: {"crit": 5, "warn": 4, "error": 3, "unknown": 2, "ok": 1, "skip": 0, "n/a": 0}[.];
	. as $d | [.use_matrix_instances[] as $i | ("utilization", "saturation", "errors") as $c
		| select($i[$c] != null and $i[$c].status != "n/a")
		| ($d.use_matrix[$i.resource][$c].status | rank) >= ($i[$c].status | rank)] | all' "$F"
jqok "findings.json: instances are listed worst first within a resource" '
	def rank: {"crit": 5, "warn": 4, "ok": 1}[.];
	[.use_matrix_instances | group_by(.resource)[] | [.[].status | rank]
	 | . == (sort | reverse)] | all' "$F"
jqok "findings.json: .findings is an array" '(.findings | type) == "array"' "$F"
# shape of one finding, reused below on an analysis that is sure to have findings
FINDING_SHAPE='
	(.findings | type) == "array"
	and ([.findings[].rank] == [range(1; (.findings | length) + 1)])
	and all(.findings[];
		(.check | type) == "string" and (.check | length) > 0
		and (.resource | type) == "string" and (.resource | length) > 0
		and (.metric | type) == "string" and (.metric | length) > 0
		and (.severity | IN("warn", "crit"))
		and (.summary | type) == "string" and (.summary | length) > 0
		and (.culprits | type) == "array"
		and all(.culprits[]; (.pid | type) == "number" and (.comm | type) == "string"
					and (.share | type) == "number"))'
jqok "findings.json: each finding has rank 1..n, check, resource, metric, severity warn|crit, summary, culprits" \
	"$FINDING_SHAPE" "$F"
jqok "findings.json: findings are exactly the checks at warn or crit" '
	([.findings[].check] | sort) == ([.checks[] | select(.status == "warn" or .status == "crit") | .id] | sort)' "$F"
jqok "findings.json: .unknowns each have non-empty check, metric and reason" '
	(.unknowns | type) == "array"
	and all(.unknowns[]; all(.check, .metric, .reason; type == "string" and length > 0))' "$F"
jqok "findings.json: .cost.cpu_seconds > 0" '.cost.cpu_seconds > 0' "$F"
errors=$(jq -r '[.checks[] | select(.status == "error") | .id] | join(" ")' "$F")
is "$errors" "" "no check has status error"
# sonde's own flame-graph script at most, pinned by its hash in the page's CSP
nscript=$(grep -oi '<script' "$X/report.html" | wc -l)
ok "report.html has at most one <script> (sonde's flame graph), got $nscript" test "$nscript" -le 1
if [ "$nscript" = 1 ]; then
	ok "and the page's CSP allows only that script, by hash" \
		grep -q "script-src 'sha256-[A-Za-z0-9+/=]*'\">" "$X/report.html"
fi
ok "report.md is not empty" test -s "$X/report.md"
# the matrix links to the checks' sections: fragments only, each to an id on the page
hrefs=$(grep -o 'href="[^"]*"' "$X/report.html" | sort -u)
nonfrag=$(grep -vc '^href="#' <<<"$hrefs")
is "$nonfrag" 0 "report.html: every link is a fragment (#...)"
dangling=0
nlinks=0
while read -r h; do
	[ -n "$h" ] || continue
	id=${h#href=\"#}
	id=${id%\"}
	nlinks=$((nlinks + 1))
	grep -qF "id=\"$id\"" "$X/report.html" || { diag "no id for $h"; dangling=$((dangling + 1)); }
done <<<"$hrefs"
is "$dangling" 0 "report.html: every fragment link has its target ($nlinks links)"
ncells=$(jq '[.use_matrix[][] | select(.check != null)] | length' "$F")
ok "report.html: a matrix cell for each of the $ncells checked cells links to its check" \
	test "$(grep -c '<td class="st-[a-z]*"><a href="#use\.' "$X/report.html")" -ge "$ncells"
ok "report.html: a check heading has its check id" grep -q '<h[34] id="use\.cpu-utilization">' "$X/report.html"
ok "report.md: Workload after Findings" awk '/^## Findings$/ { f = 1 } f && /^## Workload$/ { w = 1 } END { exit !w }' "$X/report.md"
ok "report.md: Workload grouped by question (### Who)" grep -qx '### Who' "$X/report.md"
nseries=$(jq '[.checks[].evidence[] | select(.kind == "series")] | length' "$F")
ok "report.html: a sparkline for each of the $nseries series at least" \
	test "$(grep -o '<figure class="spark">' "$X/report.html" | wc -l)" -ge "$nseries"

# ---- analyze reproduces the run ----
"$SONDE" analyze "$X" --json >"$T/analyze.json" 2>"$T/analyze.err"
is "$?" 0 "sonde analyze EXTRACTED --json exits 0"
pairs() { jq -c '[.checks[] | [.id, .status]] | sort' "$1" 2>/dev/null; }
order() { jq -c '[.findings[] | [.check, .severity]]' "$1" 2>/dev/null; }
is "$(pairs "$T/analyze.json")" "$(pairs "$F")" "analyze: same (check id, status) pairs as the run"
is "$(order "$T/analyze.json")" "$(order "$F")" "analyze: same findings in the same order as the run"
is "$(jq -c .use_matrix "$T/analyze.json")" "$(jq -c .use_matrix "$F")" "analyze: same USE matrix"
is "$(jq -c .use_matrix_instances "$T/analyze.json")" "$(jq -c .use_matrix_instances "$F")" \
	"analyze: same USE matrix instances"
is "$(jq -c .window "$T/analyze.json")" "$(jq -c .window "$F")" "analyze: same window"

# ---- the finding shape, on an analysis with thresholds low enough to fire ----
# crit at 0: an idle 2 s window can record no busy tick at all, and 0 >= 0 still fires.
"$SONDE" analyze "$X" --json --set use.cpu-utilization.warn_pct=0 \
	--set use.cpu-utilization.crit_pct=0 >"$T/forced.json" 2>"$T/forced.err"
is "$?" 0 "analyze with lowered CPU thresholds exits 0"
jqok "forced: use.cpu-utilization is a crit finding" \
	'any(.findings[]; .check == "use.cpu-utilization" and .severity == "crit")' "$T/forced.json"
jqok "forced: each finding has the documented shape" "$FINDING_SHAPE" "$T/forced.json"

done_testing
