#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Retention (sonde run --keep N) chooses bundles by what they are, never by
# their name: the running user's own files, sonde bundles of this host (their
# manifest), newest by the window their manifest records; the bundle just
# written always stays, and nothing else is ever removed.
#
# --out holds four real bundles of this host (4, 3, 2 and 1 days old; the one of
# a day ago is named as if of 2000, the one of 3 days has a redaction map), and
# what --keep must leave alone: files planted by another user under names
# dated 2999 (junk, and a copy of a real bundle), a file of ours named like a
# bundle that is none, a symbolic link, another host's bundle named like ours,
# this host's bundle of a support case, and an unrelated file. (Before, the
# names dated 2999 counted as the newest: root removed every real bundle.)
. tests/lib/tap.sh

[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
for tool in jq tar; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ "$(id -u)" -eq 0 ] || skip_all "needs root (to plant files owned by another user)"
id nobody >/dev/null 2>&1 || skip_all "no user nobody to plant files as"

T=$(mktemp -d /tmp/sonde-cli-keep.XXXXXX)
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
O=$T/out
mkdir -p "$O" "$T/made"
HOST=$(cat /proc/sys/kernel/hostname)
PART=$(sed 's/[^A-Za-z0-9.-]/_/g' <<<"$HOST")
RUN=(--window 1 --interval 1 --no-bpf --no-perf --no-progress --check use.cpu-utilization)

# This host's id, from a run's manifest; that run's bundle is this host's, of now, with a case id.
"$SONDE" run "${RUN[@]}" --case-id TICKET-1 --out "$T/made" >/dev/null 2>&1
CASE_BUNDLE=$(ls "$T/made"/sonde-*.tar.xz 2>/dev/null | head -1)
[ -n "$CASE_BUNDLE" ] || skip_all "sonde run wrote no bundle here"
MYID=$(tar -xJOf "$CASE_BUNDLE" manifest.json | jq -r '.host.host_id // empty')
mv "$CASE_BUNDLE" "$O/"
CASE_BUNDLE=$(basename "$CASE_BUNDLE")

# mkbundle NAME SECONDS_AGO [HOST [HOST_ID]]: a real bundle of HOST (this one), of a window
# SECONDS_AGO, made by sonde analyze of a small capture, into $O/NAME
mkbundle() {
	local name=$1 ago=$2 host=${3:-$HOST} id=${4-$MYID} dir wall0
	dir=$T/cases/$name
	wall0=$((($(date +%s) - ago) * 1000000000))
	mkdir -p "$dir"
	{
		echo "%wall0 $wall0"
		echo "=== sonde 1 1.001 sonde:run"
		printf 'version: 0.1.0\nwindow_s: 1.000\ninterval_s: 1.000\nstart_wall_ns: %s\n' "$wall0"
		printf 'end_wall_ns: %s\nstart_mono_ns: 1000000000000\nend_mono_ns: 1001001000000\n' \
			"$((wall0 + 1001000000))"
		printf 'samples: 2\npartial: 0\nstop_reason: complete\nclk_tck: 100\npage_size: 4096\n'
		echo "=== host 0 0 /proc/sys/kernel/hostname"
		echo "$host"
		if [ -n "$id" ]; then
			echo "=== host 0 0 sonde:host-id"
			echo "$id"
		fi
	} >"$dir/case.txt"
	rm -rf "$T/made" && mkdir -p "$T/made"
	"$TOP/tests/checks/mkcap" "$dir/case.txt" "$dir/raw" &&
		"$SONDE" analyze "$dir" --check use.cpu-utilization --out "$T/made" >/dev/null 2>&1 &&
		mv "$T/made"/sonde-*.tar.xz "$O/$name"
}
stamp() { date -u -d @$(($(date +%s) - $1)) +%Y%m%dT%H%M%SZ; }

DAY=86400
R1=sonde-$PART-$(stamp $((4 * DAY))).tar.xz
R2=sonde-$PART-$(stamp $((3 * DAY))).tar.xz
R3=sonde-$PART-$(stamp $((2 * DAY))).tar.xz
R4=sonde-$PART-20000101T000000Z.tar.xz # a day old, by its manifest
OTHER=sonde-$PART-20000102T000000Z.tar.xz
mkbundle "$R1" $((4 * DAY)) || diag "making $R1 failed"
mkbundle "$R2" $((3 * DAY)) || diag "making $R2 failed"
touch "$O/${R2%.tar.xz}.redaction-map.json"
mkbundle "$R3" $((2 * DAY)) || diag "making $R3 failed"
mkbundle "$R4" $DAY || diag "making $R4 failed"
mkbundle "$OTHER" $((5 * DAY)) "not-$HOST" 0123456789abcdef0123456789abcdef || diag "making $OTHER failed"
is "$(ls "$O"/*.tar.xz | wc -l)" 6 "six real bundles made"
is "$(tar -xJOf "$O/$R4" manifest.json | jq -r .host.host_id)" "$MYID" "the one named 2000 is this host's"

# planted by another user, dated 2999: junk, and a copy of a real bundle of this host
for d in 01 02 03; do
	head -c 1024 /dev/urandom >"$O/sonde-$PART-299901${d}T000000Z.tar.xz"
done
cp "$O/$R3" "$O/sonde-$PART-29990104T000000Z.tar.xz"
chown nobody "$O"/sonde-"$PART"-2999010[1-4]T000000Z.tar.xz
# ours, but no bundle; a symbolic link; an unrelated file
head -c 1024 /dev/urandom >"$O/sonde-$PART-29990105T000000Z.tar.xz"
ln -s "$O/$R1" "$O/sonde-$PART-29990106T000000Z.tar.xz"
touch "$O/unrelated.tar.xz"
ls "$O" | sort >"$T/before"

"$SONDE" run "${RUN[@]}" --out "$O" --keep 3 >"$T/stdout" 2>"$T/stderr"
is "$?" 0 "run --keep 3: exit 0"
new=$(sed -n 's/^Bundle: //p' "$T/stdout")
ok "the new bundle is there" test -n "$new" -a -f "$new"
ok "it says it removed two" grep -qxF 'Retention (--keep 3): 2 older bundles removed' "$T/stdout"
ok "and left alone the five files of others (and the link)" \
	grep -qxF "Retention (--keep 3): 5 files named like a bundle left alone: not this user's own, or writable by others" "$T/stdout"
ls "$O" | sort >"$T/left"
for f in "$R4" "$R3"; do
	ok "kept: $f (newest by its manifest)" grep -qxF "$f" "$T/left"
done
for f in "$R2" "$R1" "${R2%.tar.xz}.redaction-map.json"; do
	ok "removed: $f" sh -c "! grep -qxF '$f' '$T/left'"
done
for f in sonde-"$PART"-2999010{1,2,3,4,5,6}T000000Z.tar.xz "$OTHER" "$CASE_BUNDLE" unrelated.tar.xz; do
	ok "left alone: $f" grep -qxF "$f" "$T/left"
done
is "$(comm -13 "$T/before" "$T/left")" "$(basename "$new")" "nothing else appeared"

# The new bundle stays even when another one's window is later (a clock set back), and it is
# the one kept of --keep 1; nothing that is not a bundle of ours goes.
mkbundle "sonde-$PART-20000103T000000Z.tar.xz" $((-DAY)) || diag "making the bundle of tomorrow failed"
"$SONDE" run "${RUN[@]}" --out "$O" --keep 1 >"$T/stdout" 2>"$T/stderr"
new=$(sed -n 's/^Bundle: //p' "$T/stdout")
ok "--keep 1 with a bundle of tomorrow: the new bundle stays" test -n "$new" -a -f "$new"
ok "it removed the four others of this host (tomorrow's too)" \
	grep -qxF 'Retention (--keep 1): 4 older bundles removed' "$T/stdout"
ls "$O" | sort >"$T/left"
is "$(comm -12 "$T/before" "$T/left" | wc -l)" 9 "the nine files that are not this host's bundles of no case stay"
ok "the planted copy of a real bundle stays" grep -qxF "sonde-$PART-29990104T000000Z.tar.xz" "$T/left"

done_testing
