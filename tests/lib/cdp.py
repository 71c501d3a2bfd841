#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Load a page in headless chromium and report what a reader's browser did.

usage: cdp.py PAGE.html SCREENSHOT.png [WIDTH] [light|dark|print]

Talks the DevTools protocol over --remote-debugging-pipe (fd 3 and 4, JSON
messages ended by NUL), so it needs no network port and no library. Prints
one JSON object: the page's height at WIDTH px (scrollHeight), how far
down the verdict, the USE matrix and the first finding start, the console
messages and exceptions, every request that was not for the page itself,
and the CSP violations. Exit 2 when chromium cannot be started.
"""
import base64
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def main():
    page, shot = os.path.abspath(sys.argv[1]), sys.argv[2]
    width = int(sys.argv[3]) if len(sys.argv) > 3 else 1280
    scheme = sys.argv[4] if len(sys.argv) > 4 else "light"
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print("chromium is not installed", file=sys.stderr)
        return 2
    prof = tempfile.mkdtemp(prefix="sonde-cdp-")
    err = open(os.path.join(prof, "stderr"), "w")
    r_ours, w_theirs = os.pipe()   # chromium writes on its fd 4
    r_theirs, w_ours = os.pipe()   # chromium reads on its fd 3

    def child_fds():
        # through fds above both, so that neither is overwritten before it is moved
        a, b = os.dup(r_theirs), os.dup(w_theirs)
        a2, b2 = fcntl.fcntl(a, fcntl.F_DUPFD, 10), fcntl.fcntl(b, fcntl.F_DUPFD, 10)
        os.dup2(a2, 3)
        os.dup2(b2, 4)

    args = [exe, "--headless=new", "--remote-debugging-pipe", "--no-first-run",
            "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
            "--disable-background-networking", "--disable-sync", "--no-sandbox",
            "--user-data-dir=" + prof, "--window-size=%d,800" % width, "about:blank"]
    try:
        proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False,
                                stdout=subprocess.DEVNULL, stderr=err)
    except OSError as e:
        print("chromium cannot start: %s" % e, file=sys.stderr)
        return 2
    os.close(r_theirs)
    os.close(w_theirs)
    rd = os.fdopen(r_ours, "rb", buffering=0)
    wr = os.fdopen(w_ours, "wb", buffering=0)
    buf = b""
    nid = 0
    events = []

    def send(method, params=None, session=None):
        nonlocal nid
        nid += 1
        msg = {"id": nid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        wr.write(json.dumps(msg).encode() + b"\0")
        return nid

    def recv(deadline):
        nonlocal buf
        while b"\0" not in buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = rd.read(65536)
            if not chunk:
                raise EOFError("chromium closed the pipe")
            buf += chunk
        raw, buf = buf.split(b"\0", 1)
        return json.loads(raw)

    def call(method, params=None, session=None, timeout=60):
        want = send(method, params, session)
        deadline = time.time() + timeout
        while True:
            m = recv(deadline)
            if m.get("id") == want:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            events.append(m)

    try:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        sess = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for dom in ("Page", "Runtime", "Log", "Network"):
            call(dom + ".enable", session=sess)
        call("Emulation.setDeviceMetricsOverride",
             {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": False},
             session=sess)
        media = {"features": [{"name": "prefers-color-scheme",
                               "value": "dark" if scheme == "dark" else "light"}]}
        if scheme == "print":
            media["media"] = "print"
        call("Emulation.setEmulatedMedia", media, session=sess)
        url = "file://" + page
        call("Page.navigate", {"url": url}, session=sess)
        deadline = time.time() + 60
        while not any(e.get("method") == "Page.loadEventFired" for e in events):
            events.append(recv(deadline))
        time.sleep(0.5)
        js = ("JSON.stringify({h: document.documentElement.scrollHeight,"
              " top: Object.fromEntries(['verdict','use-matrix','findings'].map(id => {"
              " const e = document.getElementById(id); return [id, e ? Math.round("
              "e.getBoundingClientRect().top + window.scrollY) : null]; })),"
              " first: (() => { const h = document.querySelector('#findings ~ h3');"
              " return h ? Math.round(h.getBoundingClientRect().top + window.scrollY) : null })(),"
              " toc: (() => { const n = document.querySelector('nav.toc'); if (!n) return null;"
              " window.scrollTo(0, 3000); const t = n.getBoundingClientRect().top;"
              " window.scrollTo(0, 0); return Math.round(t); })(),"
              " sections: Array.from(document.querySelectorAll('main h2')).map(h =>"
              " [h.id, Math.round(h.getBoundingClientRect().top + window.scrollY)]),"
              " bg: getComputedStyle(document.body).backgroundColor})")
        res = call("Runtime.evaluate", {"expression": js, "returnByValue": True}, session=sess)
        out = json.loads(res["result"]["value"])
        full = call("Page.captureScreenshot",
                    {"format": "png", "captureBeyondViewport": True,
                     "clip": {"x": 0, "y": 0, "width": width,
                              "height": min(out["h"], 16000), "scale": 1}}, session=sess)
        with open(shot, "wb") as f:
            f.write(base64.b64decode(full["data"]))
        # what a reader sees first: the first screen (800 px)
        first = call("Page.captureScreenshot",
                     {"format": "png", "clip": {"x": 0, "y": 0, "width": width,
                                                "height": 800, "scale": 1}}, session=sess)
        with open(re.sub(r"(\.png)?$", "-first.png", shot, count=1), "wb") as f:
            f.write(base64.b64decode(first["data"]))
        console, requests = [], []
        for e in events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.consoleAPICalled":
                console.append("%s: %s" % (p.get("type"), " ".join(
                    str(a.get("value", a.get("description", ""))) for a in p.get("args", []))))
            elif m == "Runtime.exceptionThrown":
                console.append("exception: %s" % p.get("exceptionDetails", {}).get("text"))
            elif m == "Log.entryAdded":
                ent = p.get("entry", {})
                console.append("%s %s: %s" % (ent.get("source"), ent.get("level"), ent.get("text")))
            elif m == "Network.requestWillBeSent":
                u = p.get("request", {}).get("url", "")
                if u != url and not u.startswith("data:"):
                    requests.append(u)
        out.update({"console": console, "requests": requests, "width": width, "scheme": scheme})
        print(json.dumps(out))
        return 0
    except (TimeoutError, EOFError, RuntimeError) as e:
        err.flush()
        with open(os.path.join(prof, "stderr")) as f:
            tail = f.read().strip().splitlines()[-3:]
        print("chromium: %s%s" % (e, "".join("\n  " + t for t in tail)), file=sys.stderr)
        return 2
    finally:
        try:
            send("Browser.close")
        except OSError:
            pass
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(prof, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
