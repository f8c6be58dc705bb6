#!/usr/bin/env python3
"""Latency and memory of `fplint server`, measured over stdio (stdlib only).

    tests/lsp/measure.py BIN ROOT FILE [--edits N] [--debounce MS]

Opens FILE (in workspace folder ROOT) and times the first diagnostics; then
N edits that each add or remove labels on the first `- namespace: kube-system`
selector (so FP001 comes and goes and every edit is published), timing each
edit to its diagnostics; prints medians and the server's resident memory
after the open, after 10% of the edits and at the end.
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import time


class Server:
    def __init__(self, cmd):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def recv(self):
        length = None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise EOFError("server closed stdout")
            line = line.strip()
            if not line:
                break
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            m = self.recv()
            if m.get("id") == self.next_id and "method" not in m:
                return m.get("result")

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def diagnostics_for(self, uri):
        while True:
            m = self.recv()
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri:
                return m["params"]["diagnostics"]

    def rss_kib(self):
        for line in pathlib.Path(f"/proc/{self.p.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return -1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("root", type=pathlib.Path)
    ap.add_argument("file", type=pathlib.Path)
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--debounce", type=int, default=75)
    a = ap.parse_args()
    root, file = a.root.resolve(), a.file.resolve()
    uri = file.as_uri()
    s = Server([a.bin, "server"])
    s.request(
        "initialize",
        {
            "capabilities": {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": {"debounceMs": a.debounce},
        },
    )
    s.notify("initialized", {})
    text = file.read_text()
    lines = text.split("\n")
    line = next(i for i, l in enumerate(lines) if l.strip() == "- namespace: kube-system")
    indent = " " * (len(lines[line]) - len(lines[line].lstrip()) + 2)
    labels = f"{indent}labels: {{ k8s-app: kube-dns }}\n"

    started = time.monotonic()
    s.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": text}},
    )
    first = s.diagnostics_for(uri)
    opened = time.monotonic() - started
    rss = [("open", s.rss_kib())]
    has_labels = any(d["code"] == "FP001" for d in first)
    times = []
    for n in range(a.edits):
        at = {"line": line + 1, "character": 0}
        if has_labels:
            change = {"range": {"start": at, "end": {"line": line + 2, "character": 0}}, "text": ""}
        else:
            change = {"range": {"start": at, "end": at}, "text": labels}
        started = time.monotonic()
        s.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": n + 2}, "contentChanges": [change]},
        )
        s.diagnostics_for(uri)
        times.append(time.monotonic() - started)
        has_labels = not has_labels
        if n + 1 == max(1, a.edits // 10):
            rss.append((f"{n + 1} edits", s.rss_kib()))
    rss.append((f"{a.edits} edits", s.rss_kib()))
    s.request("shutdown", None)
    s.notify("exit", None)
    code = s.p.wait(timeout=30)
    print(f"open: {opened * 1000:.0f} ms (debounce {a.debounce} ms)")
    if times:
        print(
            f"one edit: median {statistics.median(times) * 1000:.0f} ms, "
            f"min {min(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms over {len(times)}"
        )
    print("rss: " + ", ".join(f"{k} {v / 1024:.1f} MiB" for k, v in rss))
    print(f"exit code {code}")


if __name__ == "__main__":
    main()
