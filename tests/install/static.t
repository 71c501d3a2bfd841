#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The static build (make static, build-aux/static.mk) as a support engineer
# hands it over: one file, statically linked (no program interpreter, no
# dynamic section), that runs `sonde run --window 2` in a chroot holding only
# that file and bind mounts of /proc, /sys and /dev (no libraries, no /etc, no
# /tmp), writes a bundle that `sonde verify` accepts, and whose `sonde
# analyze` gives the same findings, statuses and known unknowns with the
# static and the dynamic binary. --upload is refused before the window, with
# the reason, since this build has no libcurl.
#
# STATIC=path tests another static binary (default build/static/sonde);
# SONDE is the dynamic build to compare with. Needs root (chroot, mounts) and
# unshare; skips with the reason otherwise.
. tests/lib/tap.sh

STATIC=${STATIC:-$TOP/build/static/sonde}
[ -x "$STATIC" ] || skip_all "no static binary at $STATIC (make static)"
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" = 0 ] || skip_all "needs root (chroot and bind mounts)"
for tool in unshare chroot readelf jq; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done

T=$(mktemp -d /var/tmp/sonde-static.XXXXXX)
R=$T/root
# The mounts live in the test's own mount namespace (unshare -m) and die with
# it; the directory goes whatever happens.
trap 'rm -rf --one-file-system "$T"' EXIT
trap 'exit 130' INT TERM

# ---- one file ----
readelf -lW "$STATIC" >"$T/phdrs" 2>&1
ok "no program interpreter (statically linked)" sh -c "! grep -q INTERP '$T/phdrs'"
ok "no dynamic section: no shared library is needed" \
	sh -c "readelf -d '$STATIC' 2>&1 | grep -q 'no dynamic section'"
is "$("$STATIC" --version)" "$("$SONDE" --version | sed 's/$/ (static)/')" \
	"--version says it is the static build"

# ---- --upload: refused before the window, nothing written ----
mkdir -p "$T/up"
"$STATIC" run --window 1 --out "$T/up" --upload https://127.0.0.1:9/x >"$T/up.out" 2>"$T/up.err"
is "$?" 2 "run --upload: a usage error (exit 2) in the static build"
ok "the message says why and what to do instead" \
	grep -q 'static build of sonde, which cannot upload: copy the bundle' "$T/up.err"
is "$(ls "$T/up" | wc -l)" 0 "no window was observed: nothing in --out"

# ---- a run in a chroot with nothing else ----
mkdir -p "$R/proc" "$R/sys" "$R/dev" "$R/out"
cp "$STATIC" "$R/sonde"
ok "the chroot holds the binary alone (and the mount points)" \
	test "$(find "$R" -mindepth 1 | sort | tr '\n' ' ')" = \
	"$R/dev $R/out $R/proc $R/sonde $R/sys "
# SONDE_CONFIG unset: the chroot has no /etc/sonde/sonde.conf to read anyway.
unshare -m --propagation private sh -c "
	mount --rbind /proc '$R/proc' && mount --rbind /sys '$R/sys' && mount --rbind /dev '$R/dev' &&
	exec env -i PATH=/ '$(command -v chroot)' '$R' /sonde run --window 2 --out /out" >"$T/run.out" 2>"$T/run.err"
rc=$?
is "$rc" 0 "sonde run --window 2 in the chroot: exit 0"
[ "$rc" = 0 ] || sed 's/^/# /' "$T/run.err" | tail -20
B=$(ls "$R"/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "it wrote a bundle ($(basename "${B:-none}"))" test -f "$B"
ok "nothing but the bundle in the chroot's /out" test "$(ls "$R/out" | wc -l)" = 1

"$STATIC" verify "$B" >"$T/verify.out" 2>&1
is "$?" 0 "sonde verify (static) accepts it"
"$SONDE" verify "$B" >"$T/verify2.out" 2>&1
is "$?" 0 "sonde verify (dynamic) accepts it"

# ---- analyze: the same findings from both builds ----
summary='{checks: [.checks[] | {id, status}], findings: [.findings[] | {check, metric, severity}],
	unknowns: [.unknowns[] | {check, metric, reason}]}'
"$STATIC" analyze "$B" --json >"$T/a-static.json" 2>"$T/a-static.err"
rs=$?
"$SONDE" analyze "$B" --json >"$T/a-dynamic.json" 2>"$T/a-dynamic.err"
rd=$?
ok "analyze exits alike (static $rs, dynamic $rd)" test "$rs" = "$rd" -a "$rs" -le 3
jq -S "$summary" "$T/a-static.json" >"$T/s-static" 2>&1
jq -S "$summary" "$T/a-dynamic.json" >"$T/s-dynamic" 2>&1
ok "analyze gives checks ($(jq '.checks | length' "$T/s-static") of them)" \
	test "$(jq '.checks | length' "$T/s-static")" -gt 40
ok "the same checks, statuses, findings and known unknowns" diff -u "$T/s-static" "$T/s-dynamic"
ok "no check ended in error" test "$(jq '[.checks[] | select(.status == "error")] | length' \
	"$T/a-static.json")" = 0

done_testing
