# SPDX-License-Identifier: GPL-2.0-or-later
# Network helpers for the tests that run servers on loopback.

# free_port: a TCP port on 127.0.0.1 nothing listens on at this moment
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
