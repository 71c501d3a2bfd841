#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# make rpm (build-aux/rpm.mk, build-aux/sonde.spec): the package holds the
# static binary and the same files as the .deb (man pages, completion, the
# config file as %config(noreplace), the audit unit and timer, the docs);
# it requires no shared library; its scriptlets, read with rpm -qp --scripts,
# reload systemd and never enable the timer, and on removal disable it. Then
# it is installed with rpm --root into a root that holds only /bin/sh (dash
# and its libc, for the scriptlets) and a stand-in systemctl that logs its
# arguments: installed, verified (rpm -V), the binary run in that root
# (chroot: sonde run --window 2), an operator's config kept on removal.
#
# SONDE_RPM=path tests a package already built instead of running make rpm
# (which needs the static build: make static). Needs root (chroot) and rpm.
. tests/lib/tap.sh

[ "$(id -u)" = 0 ] || skip_all "needs root (chroot, rpm --root)"
for tool in rpm rpmbuild chroot unshare; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -n "${SONDE_RPM:-}" ] || [ -x "$TOP/build/static/sonde" ] ||
	skip_all "no static binary at build/static/sonde (make static)"

T=$(mktemp -d /var/tmp/sonde-rpm.XXXXXX)
R=$T/root
trap 'rm -rf --one-file-system "$T"' EXIT
trap 'exit 130' INT TERM

# ---- the package ----
if [ -n "${SONDE_RPM:-}" ]; then
	RPM=$SONDE_RPM
else
	make -s rpm >"$T/make-rpm.log" 2>&1
	rc=$?
	is "$rc" 0 "make rpm: exit 0"
	[ "$rc" = 0 ] || { tail -20 "$T/make-rpm.log" | sed 's/^/# /'; done_testing; exit 1; }
	RPM=$(ls build/rpm/RPMS/x86_64/sonde-*.rpm 2>/dev/null | head -1)
fi
ok "the package is there: $RPM" test -f "$RPM"
rpm -qpl "$RPM" >"$T/files" 2>/dev/null
for f in /usr/bin/sonde /usr/share/man/man1/sonde-run.1.gz /usr/share/man/man5/sonde.conf.5.gz \
	/usr/share/bash-completion/completions/sonde /usr/share/zsh/site-functions/_sonde \
	/usr/lib/systemd/system/sonde-audit.timer /usr/lib/systemd/system/sonde-audit.service \
	/usr/libexec/sonde/sonde-audit /etc/sonde/sonde.conf /usr/share/doc/sonde/portability.md; do
	ok "the package holds $f" grep -qx -- "$f" "$T/files"
done
is "$(grep -c '^/usr/share/man/man' "$T/files")" "$(ls docs/man/*.scd | wc -l)" \
	"a man page per docs/man/*.scd"
is "$(rpm -qp --configfiles "$RPM" 2>/dev/null)" /etc/sonde/sonde.conf "the config file is %config"
ok "... noreplace: an operator's changes survive an upgrade" \
	sh -c "rpm -qp --qf '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' '$RPM' | grep -qx '/etc/sonde/sonde.conf cn'"
rpm -qp --requires "$RPM" >"$T/requires" 2>/dev/null
is "$(grep -v -e '^rpmlib(' -e '^/bin/sh$' "$T/requires" | sort -u | tr '\n' ' ')" "" \
	"no shared library required: only /bin/sh and rpmlib ($(sort -u "$T/requires" | tr '\n' ' '))"
is "$(rpm -qp --qf '%{ARCH} %{LICENSE}' "$RPM" 2>/dev/null)" "x86_64 GPL-2.0-or-later" "arch and license"

# ---- the scriptlets, as rpm -qp --scripts shows them ----
rpm -qp --scripts "$RPM" >"$T/scripts" 2>/dev/null
ok "scriptlets: post, preun, postun" \
	sh -c "grep -q '^postinstall scriptlet' '$T/scripts' && grep -q '^preuninstall scriptlet' '$T/scripts' && grep -q '^postuninstall scriptlet' '$T/scripts'"
ok "no scriptlet enables or starts anything" sh -c "! grep -Eq 'systemctl[^|]*( enable| start| preset)' '$T/scripts'"
ok "every systemctl call is guarded (systemd running, systemctl there) and cannot fail the transaction" \
	sh -c "[ \$(grep -Ec '^[[:space:]]*systemctl ' '$T/scripts') -eq \$(grep -Ec '^[[:space:]]*systemctl .*\|\| :\$' '$T/scripts') ] &&
		[ \$(grep -c '/run/systemd/system' '$T/scripts') -eq 3 ]"
ok "preun acts only on removal (\$1 = 0), not on upgrade" grep -q '\[ "\$1" -eq 0 \]' "$T/scripts"

# ---- rpm --root: a root with /bin/sh, a logging systemctl, and nothing else ----
mkdir -p "$R/bin" "$R/usr/bin" "$R/run/systemd/system" "$R/proc" "$R/sys" "$R/dev" "$R/tmp"
cp /bin/dash "$R/bin/sh"
for lib in $(ldd /bin/dash | awk '$(NF-1) ~ /^\// { print $(NF-1) } $1 ~ /^\// { print $1 }'); do
	mkdir -p "$R$(dirname "$lib")" && cp -L "$lib" "$R$lib"
done
cat >"$R/usr/bin/systemctl" <<'EOF'
#!/bin/sh
echo "systemctl $*" >>/systemctl.log
EOF
chmod 0755 "$R/usr/bin/systemctl"
rpm --root "$R" --initdb 2>"$T/initdb.err"
rpm --root "$R" -i --nodeps "$RPM" >"$T/install.out" 2>&1
is "$?" 0 "rpm --root -i: installed ($(tail -1 "$T/install.out"))"
is "$(rpm --root "$R" -q sonde 2>&1)" "$(rpm -qp "$RPM" 2>/dev/null)" "rpm -q knows it"
# --nodeps: no package of this root provides /bin/sh (it was copied in)
rpm --root "$R" -V --nodeps sonde >"$T/verify.out" 2>&1
is "$?" 0 "rpm -V: every file as packaged"
[ -s "$T/verify.out" ] && sed 's/^/# /' "$T/verify.out"
is "$(cat "$R/systemctl.log" 2>/dev/null)" "systemctl daemon-reload" "%post: daemon-reload, nothing enabled"
ok "the units name the installed binary" grep -q 'SONDE=/usr/bin/sonde' "$R/usr/lib/systemd/system/sonde-audit.service"
is "$("$R/usr/bin/sonde" --version)" "$("$TOP/sonde" --version) (static)" "the installed binary is the static build"

# The binary in that root, which has no library of ours: a run writes a bundle.
mkdir -p "$R/out"
unshare -m --propagation private sh -c "
	mount --rbind /proc '$R/proc' && mount --rbind /sys '$R/sys' && mount --rbind /dev '$R/dev' &&
	exec env -i PATH=/usr/bin:/bin '$(command -v chroot)' '$R' /usr/bin/sonde run --window 2 --out /out" \
	>"$T/run.out" 2>&1
is "$?" 0 "sonde run --window 2 in the rpm root: exit 0"
ok "... reading the packaged /etc/sonde/sonde.conf, writing its bundle" \
	sh -c "ls '$R'/out/sonde-*.tar.xz >/dev/null"

# ---- removal: an operator's config stays (as .rpmsave), the rest goes ----
echo "# an operator's change" >>"$R/etc/sonde/sonde.conf"
: >"$R/systemctl.log"
rpm --root "$R" -e sonde >"$T/erase.out" 2>&1
is "$?" 0 "rpm --root -e: removed"
ok "%preun disabled the timer" grep -qx 'systemctl --no-reload disable --now sonde-audit.timer' "$R/systemctl.log"
ok "%postun reloaded systemd" grep -qx 'systemctl daemon-reload' "$R/systemctl.log"
ok "the changed config is kept as sonde.conf.rpmsave" test -f "$R/etc/sonde/sonde.conf.rpmsave"
ok "nothing else of the package is left" \
	sh -c "! ls '$R/usr/bin/sonde' '$R/usr/libexec/sonde' '$R/usr/share/doc/sonde' '$R/usr/lib/systemd/system/sonde-audit.timer' 2>/dev/null"

done_testing
