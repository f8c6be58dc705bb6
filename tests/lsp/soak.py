#!/usr/bin/env python3
"""`fplint server` through a long editing day, over stdio (stdlib only).

    tests/lsp/soak.py BIN ROOT [--edits N] [--seed S] [--debounce MS] [--json]

ROOT is a generated monorepo (`cargo run -p xtask -- gen-monorepo`); the
script edits it on disk, so pass a copy. N random operations, seeded:

- typing into open eksctl configs and Terraform files: a CoreDNS selector's
  labels added or removed (FP001 comes and goes), YAML and HCL broken
  mid-edit and mended again (FP000 comes and goes); each is timed from the
  change to the publish for its document, and reported by kind (a
  selector toggled, a file broken, a file mended; YAML or Terraform);
- saves (the text written to disk, then `didSave`);
- manifests created and deleted on disk (`didChangeWatchedFiles`), each
  a Deployment in a namespace no profile of its team selects;
- `fplint.toml` written and removed, ignoring FP015.

It passes (exit 0) when the server never dies, resident memory at the end
is within 10% of its level after the first 500 operations (or a tenth, for
short runs), the median publish is under 100 ms, and, once every document
is saved and closed, what the server published last for each file equals a
fresh `fplint check --format json` of the tree. Saves, new and deleted
files and config changes publish nothing of their own on this tree: what
they cost shows in the edit after them (`edit_ms_after_kind`). With
`--state-only` only the first and last conditions count: the short form CI
runs on a shared machine, where times and memory are noise.
"""

import argparse
import json
import os
import pathlib
import random
import select
import statistics
import subprocess
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from measure import Server  # noqa: E402

LABELS = "{ k8s-app: kube-dns }"
STRAY = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: stray-{n}
  namespace: nowhere
spec:
  selector:
    matchLabels: {{app: stray}}
  template:
    metadata:
      labels: {{app: stray}}
    spec:
      containers:
        - name: app
          image: public.ecr.aws/nginx/nginx:1.27
          resources:
            requests: {{cpu: 250m, memory: 512Mi}}
"""


class Client(Server):
    """A client that keeps what the server published last, per document,
    and reads with a timeout (its own buffer over the raw pipe)."""

    def __init__(self, cmd):
        super().__init__(cmd)
        self.published = {}
        self.buf = b""
        self.fd = self.p.stdout.fileno()

    def fill(self, timeout):
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if not ready:
            return False
        chunk = os.read(self.fd, 1 << 16)
        if not chunk:
            raise EOFError("server closed stdout")
        self.buf += chunk
        return True

    def recv(self, timeout=None):
        """The next message, or None when nothing arrives for `timeout` seconds."""
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                length = next(
                    int(l.split(b":")[1])
                    for l in head.split(b"\r\n")
                    if l.lower().startswith(b"content-length:")
                )
                if len(rest) >= length:
                    self.buf = rest[length:]
                    return json.loads(rest[:length])
            if not self.fill(timeout):
                return None

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            m = self.recv()
            if m.get("method") == "textDocument/publishDiagnostics":
                self.published[m["params"]["uri"]] = m["params"]["diagnostics"]
            elif m.get("id") == self.next_id and "method" not in m:
                return m.get("result")

    def pump(self, until_uri=None, timeout=None):
        """Read messages; return when `until_uri` is published (True), or
        when nothing arrives for `timeout` seconds (False)."""
        while True:
            m = self.recv(timeout)
            if m is None:
                return False
            if m.get("method") == "textDocument/publishDiagnostics":
                uri = m["params"]["uri"]
                self.published[uri] = m["params"]["diagnostics"]
                if uri == until_uri:
                    return True
            elif "id" in m and "method" in m:
                # A request from the server (configuration, progress): answer it.
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": None})


def key(diags):
    return sorted((d.get("code"), d["range"]["start"]["line"]) for d in diags)


def p90(seconds):
    return round(sorted(seconds)[int(len(seconds) * 0.9)] * 1000, 1) if seconds else 0.0


def summary(groups):
    """Count, median and p90 (ms) of each group of times."""
    return {
        k: {"n": len(v), "median": round(statistics.median(v) * 1000, 1), "p90": p90(v)}
        for k, v in sorted(groups.items())
    }


def fresh(bin_, root):
    out = subprocess.run(
        [bin_, "check", "--format", "json", "--exit-zero", "."],
        capture_output=True,
        cwd=root,
        check=False,
    )
    got = {}
    for d in json.loads(out.stdout)["diagnostics"]:
        uri = (root / d["file"]).resolve().as_uri()
        got.setdefault(uri, []).append((d["code"], d["line"] - 1))
    return {u: sorted(v) for u, v in got.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("root", type=pathlib.Path)
    ap.add_argument("--edits", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--debounce", type=int, default=75)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument(
        "--state-only",
        action="store_true",
        help="pass on a live server and no stale file alone (a short run on a shared machine)",
    )
    a = ap.parse_args()
    if "/" in a.bin:
        a.bin = str(pathlib.Path(a.bin).resolve())
    rnd = random.Random(a.seed)
    root = a.root.resolve()
    teams = sorted(p for p in root.iterdir() if p.is_dir() and p.name.startswith("team-"))
    if not teams:
        sys.exit(f"{root}: no team-* folders; generate it with xtask gen-monorepo")
    c = Client([a.bin, "server"])
    c.request(
        "initialize",
        {
            "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": False}}},
            "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
            "initializationOptions": {"debounceMs": a.debounce},
        },
    )
    c.notify("initialized", {})

    # Twenty documents open at a time, half YAML, half Terraform.
    docs = {}
    for t in rnd.sample(teams, min(10, len(teams))):
        for f, lang in ((t / "cluster.yaml", "yaml"), (t / "infra" / "main.tf", "terraform")):
            text = f.read_text()
            docs[f.as_uri()] = {"path": f, "lang": lang, "text": text, "good": text, "version": 1}
            c.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": f.as_uri(), "languageId": lang, "version": 1, "text": text}},
            )
            c.pump(until_uri=f.as_uri(), timeout=30)

    created = []
    config = root / "fplint.toml"
    times, rss, silent = [], [], []
    warm = min(500, max(1, a.edits // 10))
    counts = {}
    # Publish times by what was done, and edits' times by the operation
    # before them (a save or config change is paid for by the next edit).
    by_kind, after_kind = {}, {}
    prev = ["start"]

    def timed(kind, seconds):
        by_kind.setdefault(kind, []).append(seconds)

    def change(kind, uri, text):
        d = docs[uri]
        d["version"] += 1
        d["text"] = text
        started = time.monotonic()
        c.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": d["version"]},
                "contentChanges": [{"text": text}],
            },
        )
        if not c.pump(until_uri=uri, timeout=10):
            # Kept and reported: the final comparison tells whether the
            # server lost the change or only took its time.
            silent.append((len(times) + len(silent), uri, key(c.published.get(uri, []))))
            return
        took = time.monotonic() - started
        times.append(took)
        timed(f"{kind}-{d['lang']}", took)
        after_kind.setdefault(prev[0], []).append(took)

    def watched(changes):
        c.notify("workspace/didChangeWatchedFiles", {"changes": changes})
        c.pump(timeout=0.05)

    for n in range(a.edits):
        op = rnd.choices(
            ["toggle", "break", "save", "create", "delete", "config"],
            weights=[50, 20, 15, 6, 6, 3],
        )[0]
        counts[op] = counts.get(op, 0) + 1
        uri = rnd.choice(sorted(docs))
        d = docs[uri]
        if op == "toggle" or (op == "break" and d["text"] != d["good"]):
            if d["text"] != d["good"] and not d["text"].startswith(d["good"]):
                change("mend", uri, d["good"])
            elif d["lang"] == "yaml":
                lines = d["good"].split("\n")
                i = next(i for i, l in enumerate(lines) if l.strip() == "- namespace: kube-system")
                if i + 1 < len(lines) and lines[i + 1].strip().startswith("labels"):
                    lines.pop(i + 1)
                    while i + 1 < len(lines) and lines[i + 1].strip().startswith("k8s-app"):
                        lines.pop(i + 1)
                else:
                    pad = " " * (len(lines[i]) - len(lines[i].lstrip()) + 2)
                    lines.insert(i + 1, f"{pad}labels: {LABELS}")
                d["good"] = "\n".join(lines)
                change("toggle", uri, d["good"])
            else:
                # A Terraform file: an unclosed block and back.
                broken = d["good"] + '\nresource "aws_eks_fargate_profile" "half" {\n'
                if d["text"] != d["good"]:
                    change("mend", uri, d["good"])
                else:
                    change("break", uri, broken)
        elif op == "break":
            broken = d["text"] + ("\nfargateProfiles: [\n" if d["lang"] == "yaml" else '\nresource "x" "y" {\n')
            change("break", uri, broken)
        elif op == "save":
            d["path"].write_text(d["text"])
            c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
            c.pump(timeout=0.01)
        elif op == "create":
            t = rnd.choice(teams)
            f = t / "k8s" / f"stray-{n}.yaml"
            f.write_text(STRAY.format(n=n))
            created.append(f)
            watched([{"uri": f.as_uri(), "type": 1}])
        elif op == "delete" and created:
            f = created.pop(rnd.randrange(len(created)))
            f.unlink()
            watched([{"uri": f.as_uri(), "type": 3}])
        elif op == "config":
            if config.exists():
                config.unlink()
                watched([{"uri": config.as_uri(), "type": 3}])
            else:
                config.write_text('ignore = ["FP015"]\n')
                watched([{"uri": config.as_uri(), "type": 1}])
        prev[0] = op
        if c.p.poll() is not None:
            raise AssertionError(f"the server exited with {c.p.returncode} at operation {n}")
        if (n + 1) % 1000 == 0:
            print(f"{n + 1} operations, {time.strftime('%H:%M:%S')}", file=sys.stderr, flush=True)
        if n + 1 == warm:
            rss.append(("warm", n + 1, c.rss_kib()))
    rss.append(("end", a.edits, c.rss_kib()))

    # Every document saved and closed: the disk is the truth again.
    for uri, d in sorted(docs.items()):
        d["path"].write_text(d["text"])
        c.notify("textDocument/didSave", {"textDocument": {"uri": uri}})
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    while c.pump(timeout=max(2.0, a.debounce / 1000 * 4)):
        pass
    want = fresh(a.bin, root)
    stale = []
    for uri in sorted(set(want) | set(c.published)):
        got = sorted((d.get("code"), d["range"]["start"]["line"]) for d in c.published.get(uri, []))
        if got != want.get(uri, []):
            stale.append((uri, got, want.get(uri, [])))
    c.request("shutdown", None)
    c.notify("exit", None)
    code = c.p.wait(timeout=30)

    warm_rss, end_rss = rss[0][2], rss[-1][2]
    growth = (end_rss - warm_rss) / warm_rss if warm_rss > 0 else 0.0
    median = statistics.median(times) * 1000 if times else 0.0
    figures = {
        "operations": a.edits,
        "by_kind": counts,
        "timed_publishes": len(times),
        "median_publish_ms": round(median, 1),
        "p90_publish_ms": p90(times),
        "publish_ms_by_kind": summary(by_kind),
        "edit_ms_after_kind": summary(after_kind),
        "rss_mib": {k: round(v / 1024, 1) for k, _, v in rss},
        "rss_growth_after_warmup": round(growth, 3),
        "edits_without_a_publish": len(silent),
        "stale_files": len(stale),
        "exit_code": code,
    }
    if a.json:
        print(json.dumps(figures, indent=2))
    else:
        for k, v in figures.items():
            print(f"{k}: {v}")
    for n, uri, had in silent[:10]:
        print(f"no publish within 10 s: edit {n} of {uri}; last published {had}", file=sys.stderr)
    for uri, got, exp in stale[:10]:
        print(f"stale: {uri}\n  server: {got}\n  fresh:  {exp}", file=sys.stderr)
    ok = code == 0 and not stale and (a.state_only or (growth <= 0.10 and median < 100))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
