#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package, as a new user meets it on a fresh Debian 12 machine:
# `make deb`, lintian clean (but overrides explained in
# debian/sonde.lintian-overrides), then in a fresh Debian 12 (debootstrap
# --variant=minbase, plus man-db and bash-completion, as a standard install
# has them): dpkg -i, apt-get -f install for the libraries, and there
# `sonde run`, `man sonde-run`, a real TAB completing `sonde r` and
# `sonde run --w` in a login bash, the audit timer installed but disabled,
# /etc/sonde/sonde.conf read; then removed and purged.
#
# Needs root (chroot, mounts), debootstrap and the Debian mirror of
# /etc/apt/sources.list.d (skips with the reason otherwise). The base system
# is cached in build/fresh-bookworm.tar; SONDE_DEB=path uses a package
# already built instead of running make deb.
. tests/lib/tap.sh

[ "$(id -u)" = 0 ] || skip_all "needs root (chroot and mounts)"
for tool in dpkg-buildpackage debootstrap lintian chroot; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
grep -q '^VERSION_CODENAME=bookworm' /etc/os-release 2>/dev/null ||
	skip_all "the package is built for Debian 12 (bookworm); this host is $(. /etc/os-release; echo "$PRETTY_NAME")"

T=$(mktemp -d /var/tmp/sonde-deb.XXXXXX)
R=$T/root
TMUX_SOCK=$T/tmux.sock
cleanup() {
	tmux -S "$TMUX_SOCK" kill-server 2>/dev/null
	# Only what this test mounted, under its own root, deepest first.
	for m in $(awk -v r="$R/" 'index($2, r) == 1 { print $2 }' /proc/self/mounts | sort -r); do
		umount -l "$m" 2>/dev/null
	done
	rm -rf --one-file-system "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the package ----
if [ -n "${SONDE_DEB:-}" ]; then
	DEB=$SONDE_DEB
else
	make -s deb >"$T/make-deb.log" 2>&1
	rc=$?
	is "$rc" 0 "make deb: exit 0"
	[ "$rc" = 0 ] || { tail -20 "$T/make-deb.log" | sed 's/^/# /'; done_testing; exit 1; }
	DEB=$(ls build/deb/sonde_*.deb 2>/dev/null | head -1)
fi
ok "the package is there: $DEB" test -f "$DEB"
dpkg-deb -c "$DEB" | awk '{ print $6 }' >"$T/contents"
for f in ./usr/bin/sonde ./usr/share/man/man1/sonde-run.1.gz ./usr/share/man/man5/sonde.conf.5.gz \
	./usr/share/bash-completion/completions/sonde ./usr/share/zsh/vendor-completions/_sonde \
	./lib/systemd/system/sonde-audit.timer ./lib/systemd/system/sonde-audit.service \
	./usr/libexec/sonde/sonde-audit ./etc/sonde/sonde.conf ./usr/share/doc/sonde/copyright; do
	ok "the package holds $f" grep -qx -- "$f" "$T/contents"
done
ok "/etc/sonde/sonde.conf is a conffile" sh -c "dpkg-deb -e '$DEB' '$T/ctrl' && grep -qx /etc/sonde/sonde.conf '$T/ctrl/conffiles'"

# lintian: errors and warnings fail; what is overridden says why in the overrides file.
lintian --pedantic -I "$DEB" >"$T/lintian" 2>/dev/null
sed 's/^/# lintian: /' "$T/lintian"
is "$(grep -c '^[EW]: ' "$T/lintian")" 0 "lintian: no error, no warning"
if [ -f debian/sonde.lintian-overrides ]; then
	while read -r line; do
		ok "the override '$line' is explained by a comment above it" \
			sh -c "grep -B1 -xF -- '$line' debian/sonde.lintian-overrides | head -1 | grep -q '^#'"
	done < <(grep -v '^#' debian/sonde.lintian-overrides | grep .)
fi

# ---- a fresh Debian 12 ----
CACHE=build/fresh-bookworm.tar
MIRROR=$(sed -n 's/^URIs: *\([^ ]*\).*/\1/p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
MIRROR=${MIRROR:-http://deb.debian.org/debian}
mkdir -p "$R"
if [ ! -s "$CACHE" ]; then
	if ! debootstrap --variant=minbase --include=man-db,bash-completion,ca-certificates \
		bookworm "$R.new" "$MIRROR" >"$T/debootstrap.log" 2>&1; then
		tail -5 "$T/debootstrap.log" | sed 's/^/# /'
		skip "a fresh Debian 12" "debootstrap from $MIRROR failed (no network to the mirror?)"
		done_testing
		exit $?
	fi
	tar -C "$R.new" -cf "$CACHE.tmp" . && mv "$CACHE.tmp" "$CACHE"
	rm -rf --one-file-system "$R.new"
fi
tar -C "$R" -xf "$CACHE"
ok "a fresh Debian 12 root (debootstrap minbase, man-db, bash-completion)" \
	grep -q '^VERSION_CODENAME=bookworm' "$R/etc/os-release"
ok "sonde is not in it" test ! -e "$R/usr/bin/sonde"

# What a machine has: /proc, /sys (BPF, BTF, tracefs), /dev; the host's resolver for apt.
mount -t proc proc "$R/proc"
mount --rbind /sys "$R/sys" && mount --make-rslave "$R/sys"
mount --rbind /dev "$R/dev" && mount --make-rslave "$R/dev"
cp /etc/resolv.conf "$R/etc/resolv.conf"
# No service is started inside a chroot.
printf '#!/bin/sh\nexit 101\n' >"$R/usr/sbin/policy-rc.d"
chmod 0755 "$R/usr/sbin/policy-rc.d"
cp "$DEB" "$R/tmp/"
in_root() { chroot "$R" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

# dpkg -i as the issue says: a minimal system lacks the libraries, so apt brings them.
in_root dpkg -i "/tmp/$(basename "$DEB")" >"$T/dpkg.log" 2>&1
diag "dpkg -i: $(grep -c 'depends on' "$T/dpkg.log") missing dependencies (apt-get -f install brings them)"
in_root apt-get update -qq >"$T/apt.log" 2>&1 &&
	in_root env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -qq >>"$T/apt.log" 2>&1
rc=$?
[ "$rc" = 0 ] || tail -5 "$T/apt.log" | sed 's/^/# /'
is "$rc" 0 "dpkg -i, then apt-get -f install: exit 0"
is "$(in_root dpkg-query -W -f='${Status}' sonde 2>/dev/null)" "install ok installed" "sonde is installed"

# ---- sonde run ----
mkdir -p "$R/tmp/out"
in_root sonde run --window 2 --interval 1 --out /tmp/out --no-progress >"$T/run.out" 2>"$T/run.err"
rc=$?
sed 's/^/# run: /' "$T/run.err" | head -5
is "$rc" 0 "sonde run in the fresh system: exit 0"
ok "it printed a verdict" grep -q '^Verdict: ' "$T/run.out"
B=$(ls "$R"/tmp/out/sonde-*.tar.xz 2>/dev/null | head -1)
ok "it wrote a bundle" test -f "$B"
if [ -f "$B" ]; then
	tar -xJOf "$B" findings.json >"$T/findings.json"
	is "$(jq -r '.host.context.os' "$T/findings.json" 2>/dev/null)" "Debian GNU/Linux 12 (bookworm)" \
		"the bundle's host context names the system it ran on"
	in_root sonde verify "/tmp/out/$(basename "$B")" >/dev/null 2>&1
	is "$?" 0 "the bundle verifies"
fi

# ---- man sonde-run ----
in_root env MANPAGER=cat MANWIDTH=100 man sonde-run >"$T/man.txt" 2>"$T/man.err"
ok "man sonde-run shows the page ($(head -1 "$T/man.err"))" grep -q -- '--window SECONDS' "$T/man.txt"
in_root env MANPAGER=cat man 5 sonde.conf >"$T/man5.txt" 2>&1
ok "man 5 sonde.conf shows the page" grep -q PRECEDENCE "$T/man5.txt"

# ---- a real TAB in a login bash (bash-completion from /etc/profile.d) ----
if command -v tmux >/dev/null; then
	tmux -S "$TMUX_SOCK" new-session -d -x 200 -y 40 \
		"chroot '$R' /usr/bin/env -i TERM=xterm PATH=/usr/bin:/bin HOME=/root PS1='fresh# ' /bin/bash --login -i"
	wait_for() {
		for _ in $(seq 100); do tmux -S "$TMUX_SOCK" capture-pane -p | grep -qF -- "$1" && return 0; sleep 0.1; done
		tmux -S "$TMUX_SOCK" capture-pane -p | sed 's/^/# screen: /'
		return 1
	}
	wait_for '/# ' >/dev/null
	tmux -S "$TMUX_SOCK" send-keys 'sonde r' Tab Tab
	ok "sonde r TAB TAB lists redact" wait_for 'redact'
	ok "... and run" sh -c "tmux -S '$TMUX_SOCK' capture-pane -p | grep -Eq '(^| )run( |$)'"
	tmux -S "$TMUX_SOCK" send-keys C-u 'sonde run --w' Tab
	ok "sonde run --w TAB becomes sonde run --window" wait_for 'sonde run --window'
else
	skip "a real TAB in the fresh system" "tmux is not installed (make deps)"
fi

# ---- the audit timer: installed, disabled ----
ok "sonde-audit.timer is installed" test -f "$R/lib/systemd/system/sonde-audit.timer"
if command -v systemctl >/dev/null; then
	is "$(systemctl --root="$R" is-enabled sonde-audit.timer 2>&1)" disabled "the timer is disabled by default"
	is "$(systemctl --root="$R" is-enabled sonde-audit.service 2>&1)" static "the service has nothing to enable"
fi
ok "the service runs the installed sonde" grep -qx 'Environment=SONDE=/usr/bin/sonde' \
	"$R/lib/systemd/system/sonde-audit.service"
ok "... through the installed audit script" grep -qx 'ExecStart=/usr/libexec/sonde/sonde-audit' \
	"$R/lib/systemd/system/sonde-audit.service"

# ---- the config file ----
in_root sonde config run >"$T/config.out" 2>&1
ok "sonde config reads /etc/sonde/sonde.conf" grep -q '^# file: /etc/sonde/sonde.conf$' "$T/config.out"

# ---- removed, purged ----
in_root dpkg -r sonde >/dev/null 2>&1
ok "dpkg -r: the binary is gone" test ! -e "$R/usr/bin/sonde"
ok "dpkg -r: the config file stays" test -f "$R/etc/sonde/sonde.conf"
in_root dpkg --purge sonde >/dev/null 2>&1
ok "dpkg --purge: the config file is gone" test ! -e "$R/etc/sonde/sonde.conf"
done_testing
