#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A hostile environment, made in a private mount namespace so the host is not
# touched: /proc with hidepid=2 and sonde not root; no kernel BTF (an empty
# tmpfs over /sys/kernel/btf); no PSI (an empty directory over /proc/pressure).
# Each run goes to the end, and what could not be seen is a known unknown
# with the reason.
. tests/lib/tap.sh

for tool in jq unshare su; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root (mount namespaces)"
unshare -m --propagation private true 2>/dev/null || skip_all "cannot make a mount namespace here"

T=$(mktemp -d /tmp/sonde-safety-env.XXXXXX)
trap 'rm -rf "$T"' EXIT
chmod 755 "$T"
mkdir "$T/out" && chmod 1777 "$T/out"

# 1. hidepid=2, sonde as nobody
if id nobody >/dev/null 2>&1; then
	unshare -m --propagation private sh -c "mount -t proc -o hidepid=2 proc /proc &&
		su nobody -s /bin/sh -c \"cd /tmp && '$SONDE' run --window 1 --out '$T/out' --no-progress --json\"" \
		>"$T/h.json" 2>"$T/h.err"
	is "$?" 0 "hidepid=2, not root: the run completes"
	r=$(jq -r '.unknowns[] | select(.metric == "other_users_processes") | .reason' "$T/h.json")
	diag "$r"
	case "$r" in
	*"hidepid="*"other users' processes are hidden"*) ok "hidepid: a known unknown says processes were hidden" true ;;
	*) ok "hidepid: a known unknown says processes were hidden" false ;;
	esac
	is "$(jq '[.checks[] | select(.status == "error")] | length' "$T/h.json")" 0 "hidepid: no check failed"
else
	skip "hidepid" "no user nobody"
fi

# 2. no kernel BTF
unshare -m --propagation private sh -c "mount -t tmpfs none /sys/kernel/btf &&
	'$SONDE' run --window 1 --check drilldown.cpu-why --out '$T/out' --no-progress --json" \
	>"$T/b.json" 2>"$T/b.err"
is "$?" 0 "no BTF: the run completes"
r=$(jq -r '.tools[] | select(.name == "runqlat") | .status + ": " + .reason' "$T/b.json")
diag "$r"
case "$r" in
"unavailable: this kernel has no BTF"*) ok "no BTF: runqlat unavailable, the reason says why" true ;;
*) ok "no BTF: runqlat unavailable, the reason says why" false ;;
esac
ok "no BTF: run-queue latency is a known unknown" \
	sh -c "jq -e '.unknowns[] | select(.metric == \"runq_p99_ms\") | select(.reason | contains(\"no BTF\"))' '$T/b.json' >/dev/null"

# 3. no PSI
if [ -d /proc/pressure ]; then
	mkdir "$T/empty"
	unshare -m --propagation private sh -c "mount --bind '$T/empty' /proc/pressure &&
		'$SONDE' run --window 1 --check use.cpu-saturation --out '$T/out' --no-progress --json" \
		>"$T/p.json" 2>"$T/p.err"
	is "$?" 0 "no PSI: the run completes"
	r=$(jq -r '.unknowns[] | select(.metric == "psi_some_pct") | .reason' "$T/p.json")
	diag "$r"
	ok "no PSI: psi_some_pct is a known unknown with a reason" test -n "$r"
else
	skip "no PSI" "this kernel has no /proc/pressure already (covered by the golden no-psi case)"
fi

done_testing
