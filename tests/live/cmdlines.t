#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Live: the command lines the first round takes from the task iterator's
# sleepable pass (bpf/tasks.bpf.c dump_cmdline) are byte for byte what
# /proc/PID/cmdline gives, cut where the /proc reader cuts. Four processes
# with command lines that take the kernel's different paths: plain arguments
# with odd bytes, one longer than the 4 KiB cap, one that overwrote its argv
# through the environment area as setproctitle(3) does, and one that rewrote
# argv[0] in place, shorter, keeping the final NUL. A --no-bpf run (the
# /proc walk) records the same bytes.
. tests/lib/tap.sh

for tool in jq tar xz cc perl; do
	command -v "$tool" >/dev/null || skip_all "$tool is not installed (make deps)"
done
[ -x "$SONDE" ] || skip_all "no sonde binary at $SONDE (make sonde)"
[ "$(id -u)" -eq 0 ] || skip_all "needs root for BPF (running as uid $(id -u))"

T=$(mktemp -d /tmp/sonde-live-cmdlines.XXXXXX)
tap_kill_at_exit

cat >"$T/title.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include <unistd.h>
extern char **environ;
/* argv[1]: plain | title | inplace; the others are left as given */
int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "title")) {
		/* setproctitle(3): write over argv and on into the environment, NUL at the end */
		char *start = argv[0], *end = argv[argc - 1] + strlen(argv[argc - 1]);
		char **e = environ;
		while (*e)
			e++;
		if (e != environ)
			end = e[-1] + strlen(e[-1]);
		size_t room = (size_t)(end - start);
		char title[] = "sondetitle: a title longer than the arguments it overwrote, on into "
			       "the environment area, so that the byte that ended argv is no longer "
			       "a NUL and the kernel reads up to the title's own NUL";
		size_t n = strlen(title) < room ? strlen(title) : room;
		memcpy(start, title, n);
		memset(start + n, 0, room - n + 1);
	} else if (argc > 1 && !strcmp(argv[1], "inplace")) {
		/* argv[0] rewritten shorter in place, the final NUL of argv kept */
		memset(argv[0], 'x', strlen(argv[0]));
		argv[0][1] = 0;
	}
	puts("ready");
	fflush(stdout);
	pause();
	return 0;
}
EOF
cc -O1 -o "$T/sondetitle" "$T/title.c" || skip_all "cc could not build the test program"

LONG=$(head -c 6000 /dev/zero | tr '\0' 'L')
start_one() { # NAME ARGS...: start the program, wait for it to be ready; sets P_NAME
	local name=$1
	shift
	env -i SONDE_TITLE_ENV="$(head -c 300 /dev/zero | tr '\0' e)" "$T/sondetitle" "$@" \
		>"$T/$name.out" &
	PIDS+=($!)
	eval "P_$name=$!"
	for _ in $(seq 50); do grep -q ready "$T/$name.out" 2>/dev/null && break; sleep 0.1; done
}
start_one plain plain "two words" $'tab\there' "quote\"and'back\\slash" ""
start_one long plain "$LONG"
start_one title title "argument one" "argument two"
start_one inplace inplace "kept"

# the record of /proc/PID/cmdline in a capture: "<flags> <length> <md5 of the payload>"
rec_of() { # CAPTURE PID
	perl -MDigest::MD5 -e '
		my ($f, $pid) = @ARGV; open(my $h, "<", $f) or exit 1; binmode $h;
		local $/; my $s = <$h>; my $p = 0;
		while ($p < length $s) {
			my $e = index($s, "\n", $p); last if $e < 0;
			my @h = split(/ /, substr($s, $p, $e - $p), 7); $p = $e + 1;
			next unless $h[0] eq "@" || $h[0] eq "=";
			my $data = $h[0] eq "@" ? substr($s, $p, $h[4]) : "";
			$p += $h[4] + 1 if $h[0] eq "@";
			if ($h[6] eq "/proc/$pid/cmdline") {
				print "$h[5] ", length($data), " ", Digest::MD5::md5_hex($data), "\n"; exit 0
			}
		}' "$1" "$2"
}
# what the /proc reader keeps: the first 4096 bytes, flag t when there are more
proc_of() { # PID
	perl -MDigest::MD5 -e '
		open(my $h, "<", "/proc/$ARGV[0]/cmdline") or exit 1; binmode $h;
		local $/; my $s = <$h> // ""; my $k = substr($s, 0, 4096);
		print length($s) > 4096 ? "t" : "-", " ", length($k), " ", Digest::MD5::md5_hex($k), "\n"' "$1"
}

for src in iter proc; do
	extra=()
	[ "$src" = proc ] && extra=(--no-bpf)
	mkdir -p "$T/$src"
	"$SONDE" run --window 1 --interval 1 --out "$T/$src" --no-progress --no-drilldown \
		--check workload.process-who "${extra[@]}" >/dev/null 2>"$T/$src.err"
	rc=$?
	is "$rc" 0 "$src: sonde run exits 0"
	[ "$rc" -eq 0 ] || sed 's/^/#   stderr: /' "$T/$src.err"
	tar -xJOf "$T/$src"/sonde-*.tar.xz raw/sonde.cap >"$T/$src.facts" 2>/dev/null
	tar -xJOf "$T/$src"/sonde-*.tar.xz raw/proc.pids.cap >"$T/$src.pids" 2>/dev/null
done

from=$(sed -n 's/^tasks_cmdlines: //p' "$T/iter.facts" | head -1)
if [ "$from" != bpf_iter_task ]; then
	why=$(sed -n 's/^tasks_cmdlines_why: //p; s/^tasks_source_why: //p' "$T/iter.facts" | head -1)
	skip "command lines from the task iterator" "the pass did not serve here: ${why:-no reason recorded}"
else
	ok "the run facts say the command lines came from the task iterator's pass" true
	n=$(sed -n 's/^tasks_cmdlines_from_source: //p' "$T/iter.facts")
	ok "... and how many (${n:-none})" test "${n:-0}" -ge 4
fi
is "$(sed -n 's/^tasks_cmdlines: //p' "$T/proc.facts")" "" \
	"--no-bpf: no task source, so no command lines pass in the facts"

for name in plain long title inplace; do
	eval "pid=\$P_$name"
	want=$(proc_of "$pid")
	for src in iter proc; do
		got=$(rec_of "$T/$src.pids" "$pid")
		is "$got" "$want" "$src: $name (pid $pid): the record is /proc/PID/cmdline's bytes and cut flag"
	done
done
case "$(proc_of "$P_long")" in
"t 4096 "*) ok "the long command line is cut at 4096 bytes and says so" true ;;
*) ok "the long command line is cut at 4096 bytes and says so" false ;;
esac
ok "the overwritten title reads as the title, up to its NUL, past the end of argv" \
	grep -q "sondetitle: a title longer.*own NUL \$" <<<"$(tr '\0' ' ' </proc/"$P_title"/cmdline)"

done_testing
