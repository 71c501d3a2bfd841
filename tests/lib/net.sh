# SPDX-License-Identifier: GPL-2.0-or-later
# Network helpers for the tests that run servers on loopback.

# free_port: a TCP port on 127.0.0.1 nothing listens on at this moment
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Servers a test starts in the background: their pids in SERVERS; stop_servers
# (from the test's EXIT trap) ends each and waits for it.
SERVERS=()
stop_servers() {
	local p
	for p in "${SERVERS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	SERVERS=()
}
