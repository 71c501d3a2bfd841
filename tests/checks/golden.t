#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Golden tests: replay every capture tree under tests/checks/<check-id>/<case>/
# through `sonde analyze CASE --json` and compare with its expected.json (schema
# in tests/checks/README.md). A case with a case.txt must also be exactly what
# tests/checks/mkcap makes of it, so the readable source and raw/ cannot drift;
# one whose case.txt carries a mkcpus spec ("#: " lines) must be what
# tests/checks/mkcpus makes of that spec, its raw/bpf/*.json included.
# The comparator itself is tested last: every kind of assertion must be able to
# fail. One jq run evaluates all the assertions of a case (jq starts slowly).
. tests/lib/tap.sh

for tool in jq perl tar xz diff; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"

G=tests/checks
T=$(mktemp -d /tmp/sonde-golden.XXXXXX)
trap 'rm -rf "$T"' EXIT
US=$'\x1f'

# result NAME RC [TODO]: one TAP line; a failure with a TODO reason is a known bug
# (shown, not counted), and a TODO that passes shows up in prove's summary.
result() {
	TAP_N=$((TAP_N + 1))
	local mark=""
	[ -n "$3" ] && mark=" # TODO $3"
	if [ "$2" -eq 0 ]; then
		echo "ok $TAP_N - $1$mark"
	else
		echo "not ok $TAP_N - $1$mark"
		[ -z "$3" ] && TAP_FAILED=$((TAP_FAILED + 1))
	fi
}

# ---- assertions over findings.json ----

# test($kind; $a) is true when assertion $a of that kind holds on findings.json (.);
# got($kind; $a) is what a failure shows.
JQ_DEFS='
def oneof($w): . as $v | $w | if type == "array" then any(.[]; . == $v) else . == $v end;
def rank: {"ok": 0, "warn": 1, "crit": 2}[.] // 9;
def has_or($m; $k; f): ($m | has($k) | not) or f;
def finding_match($m): . as $f |
	has_or($m; "check"; $f.check == $m.check) and
	has_or($m; "resource"; $f.resource == $m.resource) and
	has_or($m; "metric"; $f.metric == $m.metric) and
	has_or($m; "severity"; $f.severity | oneof($m.severity)) and
	has_or($m; "culprit_comm"; $f.culprits[0].comm == $m.culprit_comm) and
	has_or($m; "culprit_pid"; $f.culprits[0].pid == $m.culprit_pid) and
	has_or($m; "culprit_comms"; [$f.culprits[].comm] == $m.culprit_comms) and
	has_or($m; "culprit_container"; $f.culprits[0].container.label == $m.culprit_container);
def brief: {check, resource, metric, severity, culprits: [.culprits[]? | {pid, comm}]};
def metrics_of($a): [.checks[] | select(.id == $a.check) | .metrics[]
	| select(.name == $a.name and has_or($a; "instance"; .instance == $a.instance))];
def in_range($a): type == "number" and has_or($a; "min"; . >= $a.min) and has_or($a; "max"; . <= $a.max);
def series_of($a): [.checks[] | select(.id == $a.check) | .evidence[] | select(.kind == "series" and .title == $a.title)];

def test($kind; $a):
	if $kind == "checks" then
		[.checks[] | select(.id == $a.id)] | length == 1 and (.[0].status | oneof($a.status))
	elif $kind == "no_check_error" then
		[.checks[] | select(.status == "error")] | length == 0
	elif $kind == "no_finding_above" then
		all(.findings[]; (.severity | rank) <= ($a | rank))
	elif $kind == "first_finding" then
		.findings[0] as $f | $f != null and ($f | finding_match($a))
	elif $kind == "findings_include" then
		any(.findings[]; finding_match($a))
	elif $kind == "unknowns_include" then
		any(.unknowns[]; .check == $a.check and .metric == $a.metric and
			(.reason as $r | all(($a.reason_contains // [])[]; . as $s | $r | contains($s))))
	elif $kind == "metrics" then
		metrics_of($a) as $m |
		if $a.absent then ($m | length) == 0
		else ($m | length) > 0 and
			all($m[]; (.value | in_range($a)) and has_or($a; "status"; .status | oneof($a.status)))
		end
	elif $kind == "series" then
		series_of($a) as $s | ($s | length) > 0 and all($s[].values; length > 0 and all(.[]; in_range($a)))
	else error("unknown assertion kind \($kind)") end;

def got($kind; $a):
	if $kind == "checks" then [.checks[] | select(.id == $a.id) | {status, error}]
	elif $kind == "no_check_error" then [.checks[] | select(.status == "error") | {id, error}]
	elif $kind == "no_finding_above" then [.findings[] | {check, severity, summary}]
	elif $kind == "first_finding" then .findings[0] | if . then brief else . end
	elif $kind == "findings_include" then [.findings[] | brief]
	elif $kind == "unknowns_include" then [.unknowns[] | select(.check == $a.check)]
	elif $kind == "metrics" then metrics_of($a)
	elif $kind == "series" then
		[.checks[] | select(.id == $a.check) | .evidence[] | select(.kind == "series") | {title, values}]
	else null end;

# expected.json -> one {kind, name, a, todo} per assertion
def s: if type == "array" then join("|") elif type == "string" then . else tojson end;
def what: [to_entries[] | select(.key != "todo") | "\(.key)=\(.value | s)"] | join(" ");
def item($kind; $title): {kind: $kind, name: "\($title): \(what)", a: del(.todo), todo: .todo};
def expand:
	(.checks // {} | to_entries[] |
		(if (.value | type) == "object" then .value else {status: .value} end) as $v |
		{kind: "checks", name: "check \(.key) is \($v.status | s)", a: {id: .key, status: $v.status}, todo: $v.todo}),
	(select(.no_check_error == true) | {kind: "no_check_error", name: "no check ends in error", a: true}),
	(select(has("no_finding_above")) |
		{kind: "no_finding_above", name: "no finding above \(.no_finding_above)", a: .no_finding_above}),
	(select(has("first_finding")) | .first_finding | item("first_finding"; "first finding")),
	(.findings_include // [] | .[] | item("findings_include"; "a finding")),
	(.unknowns_include // [] | .[] | item("unknowns_include"; "unknown")),
	(.metrics // [] | .[] | item("metrics"; "metric")),
	(.series // [] | .[] | item("series"; "series"));

def line: map(tostring | gsub("[\n\t\u001f]"; " ")) | join("\u001f");
'

# evaluate EXPECTED FINDINGS: lines "0|1 US todo US name US got"
evaluate() {
	jq -r --slurpfile e "$1" "$JQ_DEFS"'
		. as $f | $e[0] | expand | . as $it |
		($f | test($it.kind; $it.a)) as $ok |
		[(if $ok then 0 else 1 end), ($it.todo // ""), $it.name,
		 (if $ok then "" else ($f | got($it.kind; $it.a) | tojson | .[0:1500]) end)] | line' "$2"
}

# ---- assertions over the reports of a bundle ----

# md_tables FILE [TITLE...]: every pipe table keeps its header's cell count on every
# row (unescaped '|' counted), and each TITLE heads a table ("**TITLE**" line).
md_tables() {
	perl -e '
		my ($file, @want) = @ARGV;
		open(my $f, "<", $file) or die "$file: $!\n";
		my @l = <$f>;
		my ($bad, $title, %seen, $hdr) = (0, "");
		sub pipes { my $s = shift; my $n = 0; while ($s =~ /(\\*)\|/g) { $n++ unless length($1) % 2 } $n }
		for my $i (0 .. $#l) {
			my $x = $l[$i];
			if ($x =~ /^\*\*(.*)\*\*\s*$/) { ($title = $1) =~ s/\\(.)/$1/g; next }
			if ($x !~ /^\|/) { undef $hdr; next }
			if (!defined $hdr) {
				$hdr = pipes($x);
				$seen{$title} = 1 if $i < $#l && $l[$i + 1] =~ /^\|\s*:?-/;
				next;
			}
			my $n = pipes($x);
			next if $n == $hdr;
			chomp $x;
			print "table \"$title\": header has $hdr unescaped |, line ", $i + 1, " has $n: $x\n";
			$bad = 1;
		}
		for (@want) { next if $seen{$_}; print "no table titled \"$_\"\n"; $bad = 1 }
		exit $bad;
	' "$@"
}

# md_table_rows FILE MAX: no evidence table of FILE (a pipe table under a "**TITLE**"
# line) has more than MAX rows under its header
md_table_rows() {
	perl -e '
		my ($file, $max) = @ARGV;
		open(my $f, "<", $file) or die "$file: $!\n";
		my ($bad, $title, $rows) = (0, "", -1);
		my $end = sub {
			if ($rows > $max && $title ne "") { print "table \"$title\": $rows rows\n"; $bad = 1 }
			$title = "" if $rows >= 0;
			$rows = -1;
		};
		while (my $x = <$f>) {
			if ($x =~ /^\*\*(.*)\*\*\s*$/) { $end->(); $title = $1; next }
			if ($x =~ /^#/) { $end->(); $title = ""; next }
			if ($x !~ /^\|/) { $end->(); next }
			$rows++ unless $x =~ /^\|\s*:?-/;
		}
		$end->();
		exit $bad;
	' "$@"
}

# report_checks NAME CASE EXPECTED: sonde analyze CASE --out DIR, then the report.html
# and report.md of the bundle it wrote, and what it printed (the terminal summary),
# against .report of EXPECTED
report_checks() {
	local name=$1 dir=$2 exp=$3 out=$T/bundle x kind s todo got rc n
	local -a titles=()
	rm -rf "$out"
	mkdir -p "$out/x"
	"$SONDE" analyze "$dir" --out "$out" "${ARGS[@]}" >"$T/terminal" 2>"$out/stderr"
	tar -xJf "$out"/sonde-*.tar.xz -C "$out/x" 2>>"$out/stderr"
	x=$out/x
	todo=$(jq -r '.report.todo // empty' "$exp")
	if [ ! -f "$x/report.html" ] || [ ! -f "$x/report.md" ]; then
		result "$name: sonde analyze --out writes a bundle with report.html and report.md" 1 "$todo"
		sed 's/^/#   /' "$out/stderr"
		return
	fi
	while IFS="$US" read -r kind s; do
		case $kind in
		html_excludes)
			! grep -qF -- "$s" "$x/report.html"
			result "$name: report.html has no \"$s\"" $? "$todo" ;;
		html_contains)
			grep -qF -- "$s" "$x/report.html"
			result "$name: report.html has \"$s\"" $? "$todo" ;;
		md_contains)
			grep -qF -- "$s" "$x/report.md"
			result "$name: report.md has \"$s\"" $? "$todo" ;;
		md_excludes)
			! grep -qF -- "$s" "$x/report.md"
			result "$name: report.md has no \"$s\"" $? "$todo" ;;
		md_tables)
			titles+=("$s") ;;
		terminal_contains)
			grep -qF -- "$s" "$T/terminal"
			result "$name: the terminal summary has \"$s\"" $? "$todo" ;;
		md_max_bytes | html_max_bytes | terminal_max_lines)
			case $kind in
			md_max_bytes) n=$(wc -c <"$x/report.md") ;;
			html_max_bytes) n=$(wc -c <"$x/report.html") ;;
			*) n=$(wc -l <"$T/terminal") ;;
			esac
			[[ $s =~ ^[0-9]+$ ]] && [ "$n" -le "$s" ]
			rc=$?
			result "$name: $kind $s (got $n)" $rc "$todo" ;;
		md_max_table_rows)
			if [[ $s =~ ^[0-9]+$ ]]; then
				got=$(md_table_rows "$x/report.md" "$s")
				rc=$?
			else
				got="not a number: $s"
				rc=1
			fi
			result "$name: no table of report.md has more than $s rows" $rc "$todo"
			[ $rc -eq 0 ] || sed 's/^/#   /' <<<"$got" ;;
		*)
			result "$name: report assertion $kind is known" 1 "" ;;
		esac
	done < <(jq -r '.report | to_entries[] | select(.key != "todo") | .key as $k |
		if (.value | type) == "array" then .value[] | "\($k)\u001f\(.)"
		elif (.value | type) == "number" and ($k | test("_max_")) then "\($k)\u001f\(.value)"
		else "\($k) (not a list)\u001f" end' "$exp")
	if [ ${#titles[@]} -gt 0 ]; then
		got=$(md_tables "$x/report.md" "${titles[@]}")
		rc=$?
		result "$name: report.md has the ${#titles[@]} tables named, and every table keeps its column count" $rc "$todo"
		[ $rc -eq 0 ] || sed 's/^/#   /' <<<"$got"
	fi
}

# ---- the cases ----

KNOWN_KEYS='["description","args","exit","checks","no_check_error","no_finding_above","first_finding","findings_include","unknowns_include","metrics","series","report"]'

shopt -s nullglob
cases=()
for d in "$G"/*/*/; do
	d=${d%/}
	[ -d "$d/raw" ] || [ -f "$d/expected.json" ] || [ -f "$d/case.txt" ] || continue
	cases+=("$d")
done
shopt -u nullglob
[ ${#cases[@]} -gt 0 ] || skip_all "no golden cases under $G"

for dir in "${cases[@]}"; do
	name=${dir#"$G"/}
	exp=$dir/expected.json
	if [ ! -f "$exp" ] || [ ! -d "$dir/raw" ]; then
		result "$name: has raw/ and expected.json" 1
		continue
	fi
	# meta: unknown keys, the exit status, whether there is a report part, the arguments
	mapfile -t meta < <(jq -r --argjson k "$KNOWN_KEYS" \
		'if type != "object" then "not an object" else
			(keys - $k | join(" ")), (.exit // 0), (has("report")), (.args // [] | .[]) end' "$exp" 2>&1)
	if [ "${#meta[@]}" -lt 3 ] || [ -n "${meta[0]}" ]; then
		result "$name: expected.json is a JSON object with known keys only" 1
		diag "  $([ "${#meta[@]}" -ge 3 ] && echo "unknown keys: ${meta[0]}" || echo "${meta[*]}")"
		continue
	fi
	want_rc=${meta[1]}
	ARGS=("${meta[@]:3}")

	if [ -f "$dir/case.txt" ] && grep -q '^#: ' "$dir/case.txt"; then
		rm -rf "$T/gen"
		# raw/bpf/ holds only what mkcpus writes there: compare it whole
		"$G/mkcpus" "$dir" "$T/gen" >"$T/gen.diff" 2>&1 &&
			diff "$dir/case.txt" "$T/gen/case.txt" >>"$T/gen.diff" 2>&1 &&
			{ [ ! -d "$dir/raw/bpf" ] && [ ! -d "$T/gen/raw/bpf" ] ||
				diff -r "$dir/raw/bpf" "$T/gen/raw/bpf" >>"$T/gen.diff" 2>&1; }
		rc=$?
		result "$name: case.txt and raw/bpf/ are what mkcpus makes of the spec" $rc
		[ $rc -eq 0 ] || cut -c1-200 "$T/gen.diff" | head -20 | sed 's/^/#   /'
	fi
	if [ -f "$dir/case.txt" ]; then
		rm -rf "$T/regen"
		# raw/bpf/*.json are not mkcap's: committed as they are, or made by mkcpus
		"$G/mkcap" "$dir/case.txt" "$T/regen" >"$T/regen.diff" 2>&1 &&
			diff -r -x bpf "$dir/raw" "$T/regen" >>"$T/regen.diff" 2>&1
		rc=$?
		result "$name: raw/ is what mkcap makes of case.txt" $rc
		[ $rc -eq 0 ] || cut -c1-200 "$T/regen.diff" | head -20 | sed 's/^/#   /'
	fi

	out=$T/findings.json
	"$SONDE" analyze "$dir" --json "${ARGS[@]}" >"$out" 2>"$T/stderr"
	rc=$?
	if [ "$rc" -ne "$want_rc" ] || ! jq -e '.checks | type == "array"' "$out" >/dev/null 2>&1; then
		result "$name: sonde analyze${ARGS[*]:+ ${ARGS[*]}} exits $want_rc with findings.json" 1
		diag "  exit $rc; stderr:"
		head -20 "$T/stderr" | sed 's/^/#   /'
		continue
	fi
	result "$name: sonde analyze${ARGS[*]:+ ${ARGS[*]}} exits $want_rc with findings.json" 0

	evaluate "$exp" "$out" >"$T/eval" 2>&1
	rc=$?
	n=0
	[ $rc -eq 0 ] && while IFS="$US" read -r st todo what got; do
		n=$((n + 1))
		result "$name: $what" "$st" "$todo"
		[ "$st" -eq 0 ] || diag "  got: $got"
	done <"$T/eval"
	if [ $rc -ne 0 ] || [ $n -eq 0 ]; then
		result "$name: expected.json evaluates (and asserts something)" 1
		head -5 "$T/eval" | sed 's/^/#   /'
	fi

	[ "${meta[2]}" = true ] && report_checks "$name" "$dir" "$exp"
done

# ---- the comparator can fail: each kind of assertion, held and broken ----

cat >"$T/control.json" <<'EOF'
{"findings": [{"check": "use.x", "resource": "cpu", "metric": "saturation", "severity": "warn",
               "culprits": [{"pid": 7, "comm": "a) b", "container": {"label": "pod a/b, container c"}}, {"pid": 8, "comm": "c"}]}],
 "unknowns": [{"check": "use.x", "metric": "psi", "reason": "/proc/pressure/cpu: No such file"}],
 "checks": [{"id": "use.x", "status": "warn", "metrics": [{"name": "m", "value": 50, "instance": "sda", "status": "warn"}],
             "evidence": [{"kind": "series", "title": "s", "values": [10, 90]}]},
            {"id": "use.y", "status": "error", "error": "boom", "metrics": [], "evidence": []}]}
EOF
cat >"$T/pairs.json" <<'EOF'
[
 ["checks", {"id": "use.x", "status": ["warn", "crit"]}, {"id": "use.x", "status": "crit"}],
 ["checks", {"id": "use.y", "status": "error"}, {"id": "use.z", "status": "error"}],
 ["no_finding_above", "warn", "ok"],
 ["first_finding", {"check": "use.x", "severity": "warn", "culprit_comm": "a) b", "culprit_comms": ["a) b", "c"]}, {"culprit_comm": "a)"}],
 ["first_finding", {"resource": "cpu", "metric": "saturation"}, {"resource": "cpu", "metric": "errors"}],
 ["findings_include", {"resource": "cpu", "culprit_pid": 7}, {"resource": "cpu", "culprit_pid": 8}],
 ["first_finding", {"culprit_container": "pod a/b, container c"}, {"culprit_container": "pod a/b"}],
 ["unknowns_include", {"check": "use.x", "metric": "psi", "reason_contains": ["/proc/pressure/cpu"]}, {"check": "use.x", "metric": "psi", "reason_contains": ["ENOENT"]}],
 ["metrics", {"check": "use.x", "name": "m", "instance": "sda", "min": 40, "max": 60, "status": "warn"}, {"check": "use.x", "name": "m", "max": 49}],
 ["metrics", {"check": "use.x", "name": "m", "status": ["ok", "warn"]}, {"check": "use.x", "name": "m", "status": "ok"}],
 ["metrics", {"check": "use.x", "name": "other", "absent": true}, {"check": "use.x", "name": "m", "absent": true}],
 ["metrics", {"check": "use.x", "name": "m"}, {"check": "use.x", "name": "m", "instance": "sdb"}],
 ["series", {"check": "use.x", "title": "s", "min": 0, "max": 100}, {"check": "use.x", "title": "s", "min": 20}],
 ["series", {"check": "use.x", "title": "s"}, {"check": "use.x", "title": "t"}]
]
EOF
while IFS="$US" read -r st what; do
	result "comparator: $what" "$st"
done < <(jq -r --slurpfile p "$T/pairs.json" "$JQ_DEFS"'
	. as $f | $p[0][] | . as [$kind, $holds, $breaks] |
	[(if ($f | test($kind; $holds)) and ($f | test($kind; $breaks) | not) then 0 else 1 end),
	 "\($kind) holds on \($holds | tojson) and fails on \($breaks | tojson)"] | line' "$T/control.json")
jq -e "$JQ_DEFS"'test("no_check_error"; true) | not' "$T/control.json" >/dev/null
result "comparator: no_check_error fails on a check in error" $?
printf '**T**\n\n| a | b |\n|---|---|\n| x\\|y | z |\n' >"$T/good.md"
printf '**T**\n\n| a | b |\n|---|---|\n| x|y | z |\n| p\\\\|q | r |\n' >"$T/bad.md"
md_tables "$T/good.md" T >/dev/null
r1=$?
md_tables "$T/bad.md" >/dev/null
r2=$?
md_tables "$T/good.md" U >/dev/null
r3=$?
result "comparator: md table check passes escaped '|', fails unescaped ones and missing tables" \
	$((r1 != 0 || r2 == 0 || r3 == 0))
printf '**T**\n\n| a |\n|---|\n| 1 |\n| 2 |\n\ntext\n\n| b |\n|---|\n| 3 |\n| 4 |\n| 5 |\n' >"$T/rows.md"
md_table_rows "$T/rows.md" 2 >/dev/null
r1=$?
md_table_rows "$T/rows.md" 1 >/dev/null
r2=$?
result "comparator: md table rows check passes 2 rows under a bound of 2, fails under 1, skips untitled tables" \
	$((r1 != 0 || r2 == 0))

done_testing
