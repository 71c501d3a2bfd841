#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A ticket system's upload endpoint, for tests/cli/upload.t: on 127.0.0.1 only.

PUT /any/path/NAME stores the body as DIR/NAME; POST takes multipart/form-data
and stores the part named "file" as DIR/<its filename> and the other fields in
DIR/<filename>.fields. --fail N answers the first N requests with 503; --status
CODE answers every request with CODE. --trickle takes the body, then answers
200 with a reply that never ends: 4 KiB a second, faster than any stall limit,
for as long as the client listens. --token-file FILE answers 401 to a request
without "Authorization: Bearer TOKEN", TOKEN the file's first line (a file: on
the command line, the token would be in every bundle's process captures).
Each request is logged to DIR/requests.log ("METHOD PATH STATUS", and
" bearer" when it carried the token). The chosen port is written to
--port-file. TLS with --cert and --key. Every connection is served in its own
thread.
"""
import argparse
import email.parser
import email.policy
import http.server
import os
import ssl
import sys
import time

args = None
seen = 0


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def bearer(self):
        return args.token and self.headers.get("Authorization") == "Bearer " + args.token

    def log(self, code):
        with open(os.path.join(args.dir, "requests.log"), "a") as log:
            log.write("%s %s %d%s\n" % (self.command, self.path, code,
                                        " bearer" if self.bearer() else ""))

    def answer(self, code):
        self.log(code)
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def body(self):
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def pre(self):
        global seen
        seen += 1
        data = self.body()
        if args.token and not self.bearer():
            return None, 401
        if args.status:
            return None, args.status
        if args.trickle:
            self.trickle()
            return None, -1
        if seen <= args.fail:
            return None, 503
        return data, 0

    def trickle(self):
        self.log(200)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        try:
            while True:
                self.wfile.write(b"x" * 1024)
                self.wfile.flush()
                time.sleep(0.25)
        except OSError:
            pass

    def do_PUT(self):
        data, code = self.pre()
        if code < 0:
            return None
        if code:
            return self.answer(code)
        name = os.path.basename(self.path.split("?")[0]) or "unnamed"
        with open(os.path.join(args.dir, name), "wb") as f:
            f.write(data)
        self.answer(201)

    def do_POST(self):
        data, code = self.pre()
        if code < 0:
            return None
        if code:
            return self.answer(code)
        head = b"Content-Type: " + self.headers["Content-Type"].encode() + b"\r\n\r\n"
        msg = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(head + data)
        fields, stored = {}, None
        for part in msg.iter_parts():
            name = part.get_param("name", header="content-disposition")
            if name == "file":
                stored = os.path.basename(part.get_filename() or "unnamed")
                with open(os.path.join(args.dir, stored), "wb") as f:
                    f.write(part.get_payload(decode=True))
            else:
                fields[name] = part.get_payload(decode=True).decode()
        if not stored:
            return self.answer(400)
        with open(os.path.join(args.dir, stored + ".fields"), "w") as f:
            for k, v in sorted(fields.items()):
                f.write("%s=%s\n" % (k, v))
        self.answer(200)


def main():
    global args
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--port-file", required=True)
    p.add_argument("--fail", type=int, default=0)
    p.add_argument("--status", type=int, default=0)
    p.add_argument("--trickle", action="store_true")
    p.add_argument("--token-file")
    p.add_argument("--cert")
    p.add_argument("--key")
    args = p.parse_args()
    args.token = None
    if args.token_file:
        with open(args.token_file) as f:
            args.token = f.readline().strip()
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(args.port_file + ".tmp", "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(args.port_file + ".tmp", args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
