# SPDX-License-Identifier: GPL-2.0-or-later
# An OpenSSH server of the test's own, for tests/live/ansible.t and the SFTP part
# of tests/cli/upload.t: keys in a directory the test owns, root logs in with a
# key only, nothing of the host's ssh configuration used or changed.
# Usage (after tests/lib/tap.sh, with $T the test's directory):
#   sshd_keys                         host key, client key, authorized_keys in $T/ssh
#   sshd_start NAME ADDR PORT [NETNS [HOSTNAME]]
#                                     sshd on ADDR:PORT (in NETNS, and in a UTS
#                                     namespace named HOSTNAME), its pid in SSHD_PIDS;
#                                     its host key added to $T/ssh/known_hosts
#   sshd_stop                         every sshd started
#   SSH_OPTS=(...)                    ssh options that use the keys above
SSHD=${SSHD:-/usr/sbin/sshd}
SSHD_PIDS=()

sshd_keys() {
	mkdir -p "$T/ssh" && chmod 700 "$T/ssh" || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/host_key" >/dev/null || return 1
	ssh-keygen -q -t rsa -b 3072 -N '' -f "$T/ssh/host_rsa_key" >/dev/null || return 1
	ssh-keygen -q -t ed25519 -N '' -f "$T/ssh/id_ed25519" >/dev/null || return 1
	cp "$T/ssh/id_ed25519.pub" "$T/ssh/authorized_keys" && chmod 600 "$T/ssh/authorized_keys"
	: >"$T/ssh/known_hosts"
	SSH_OPTS=(-o "UserKnownHostsFile=$T/ssh/known_hosts" -o StrictHostKeyChecking=yes
		-o "IdentityFile=$T/ssh/id_ed25519" -o IdentitiesOnly=yes -o BatchMode=yes
		-o ConnectTimeout=5)
}

# sshd_start NAME ADDR PORT [NETNS [HOSTNAME]]
sshd_start() {
	local name=$1 addr=$2 port=$3 ns=${4:-} host=${5:-} i
	mkdir -p /run/sshd 2>/dev/null
	cat >"$T/ssh/$name.conf" <<CONF
ListenAddress $addr:$port
HostKey $T/ssh/host_key
HostKey $T/ssh/host_rsa_key
PidFile none
AuthorizedKeysFile $T/ssh/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
CONF
	if [ -n "$ns" ] && [ -n "$host" ]; then
		ip netns exec "$ns" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$host" \
			"$SSHD" -D -e -f "$T/ssh/$name.conf" 2>"$T/ssh/$name.log" &
	elif [ -n "$ns" ]; then
		ip netns exec "$ns" "$SSHD" -D -e -f "$T/ssh/$name.conf" 2>"$T/ssh/$name.log" &
	else
		"$SSHD" -D -e -f "$T/ssh/$name.conf" 2>"$T/ssh/$name.log" &
	fi
	SSHD_PIDS+=($!)
	for i in $(seq 50); do
		grep -q "Server listening" "$T/ssh/$name.log" 2>/dev/null && break
		sleep 0.1
	done
	# known_hosts: "[addr]:port" as ssh looks it up for a port other than 22
	local entry=$addr
	[ "$port" = 22 ] || entry="[$addr]:$port"
	awk -v e="$entry" '{ print e, $1, $2 }' "$T/ssh/host_key.pub" "$T/ssh/host_rsa_key.pub" \
		>>"$T/ssh/known_hosts"
	grep -q "Server listening" "$T/ssh/$name.log"
}

# Each listener, and the sessions it forked (they outlive it otherwise).
sshd_stop() {
	local p
	for p in "${SSHD_PIDS[@]}"; do
		kill $(pgrep -P "$p") "$p" 2>/dev/null
	done
	for p in "${SSHD_PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	SSHD_PIDS=()
}
