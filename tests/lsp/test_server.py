"""End to end: the real `fplint server` binary over stdio, driven by pytest-lsp.

FPLINT_BIN names the binary (default: target/release/fplint).
"""

import asyncio
import os
import pathlib
import random
import sys
import time

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

REPO = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("FPLINT_BIN", str(REPO / "target" / "release" / "fplint"))
PROBLEM = REPO / "examples" / "eksctl" / "problem" / "cluster.yaml"
FIXED = REPO / "examples" / "eksctl" / "fixed" / "cluster.yaml"


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BIN, "server"]))
async def client(lsp_client: LanguageClient):
    yield
    await lsp_client.shutdown_session()
    # `shutdown` then `exit`: the server ends on its own, successfully.
    server = lsp_client._server
    assert server is not None and server.returncode == 0


async def start(client: LanguageClient, root: pathlib.Path) -> t.InitializeResult:
    return await client.initialize_session(
        t.InitializeParams(
            # VS Code offers UTF-16 positions only.
            capabilities=client_capabilities("visual-studio-code"),
            workspace_folders=[t.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
        )
    )


def cleared(client: LanguageClient, uri: str) -> bool:
    """Diagnostics were published for `uri`, and there are none."""
    return uri in client.diagnostics and len(client.diagnostics[uri]) == 0


def codes(diagnostics) -> list[str]:
    return [d.code for d in diagnostics or []]


async def until(check, timeout: float = 10.0, client=None) -> float:
    """Seconds until `check()` holds; fails after `timeout`."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out; diagnostics: {client and client.diagnostics}")
        await asyncio.sleep(0.002)
    return time.monotonic() - started


def open_doc(client: LanguageClient, path: pathlib.Path, text: str, version: int = 1):
    client.text_document_did_open(
        t.DidOpenTextDocumentParams(
            text_document=t.TextDocumentItem(
                uri=path.as_uri(), language_id="yaml", version=version, text=text
            )
        )
    )


def change(client: LanguageClient, uri: str, version: int, changes):
    client.text_document_did_change(
        t.DidChangeTextDocumentParams(
            text_document=t.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=changes,
        )
    )


def whole(text: str):
    return t.TextDocumentContentChangeWholeDocument(text=text)


def edit(l1, c1, l2, c2, text):
    return t.TextDocumentContentChangePartial(
        range=t.Range(start=t.Position(line=l1, character=c1), end=t.Position(line=l2, character=c2)),
        text=text,
    )


async def test_problem_then_fixed_then_random_edits(client: LanguageClient):
    result = await start(client, PROBLEM.parent)
    assert result.capabilities.position_encoding == t.PositionEncodingKind.Utf16
    uri = PROBLEM.as_uri()
    open_doc(client, PROBLEM, PROBLEM.read_text())
    took = await until(lambda: "FP001" in codes(client.diagnostics.get(uri)))
    assert took < 0.5, f"FP001 after {took:.3f} s"
    fp001 = next(d for d in client.diagnostics[uri] if d.code == "FP001")
    assert (fp001.range.start.line, fp001.range.start.character) == (36, 8)
    assert (fp001.range.end.line, fp001.range.end.character) == (37, 27)
    assert fp001.severity == t.DiagnosticSeverity.Error
    assert fp001.code_description.href.endswith("/rules/FP001.md")

    change(client, uri, 2, [whole(FIXED.read_text())])
    await until(lambda: cleared(client, uri), client=client)

    # 1,000 edits as a careless typist makes them: anywhere, any size, past
    # the end, multi-byte, half-written YAML. The server must keep up.
    rng = random.Random(19)
    pieces = ["", "x", ":", " ", "\n", "- ", "{", "}", "[", "é", "😀", "  labels: {a: b}\n", "\t", "'"]
    version = 2
    for _ in range(1000):
        version += 1
        l1, c1 = rng.randrange(0, 80), rng.randrange(0, 60)
        l2, c2 = l1 + rng.randrange(0, 3), rng.randrange(0, 60)
        change(client, uri, version, [edit(l1, c1, l2, c2, rng.choice(pieces))])
    # Back to the problem: the answer is the problem's again.
    version += 1
    change(client, uri, version, [whole(PROBLEM.read_text())])
    await until(lambda: codes(client.diagnostics.get(uri)) == ["FP001", "FP004"])
    assert client._server.returncode is None, "still running"


CLUSTER = """apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata:
  name: shop
  region: eu-west-1
iam:
  withOIDC: true
fargateProfiles:
  - name: fp
    selectors:
      - namespace: kube-system
"""

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx
          resources:
            requests: {cpu: 250m, memory: 256Mi}
"""


async def test_editing_the_cluster_file_updates_the_manifest(client: LanguageClient, tmp_path):
    root = tmp_path.resolve()
    (root / "cluster.yaml").write_text(CLUSTER)
    (root / "web.yaml").write_text(WEB)
    await start(client, root)
    cluster, web = (root / "cluster.yaml").as_uri(), (root / "web.yaml").as_uri()
    open_doc(client, root / "web.yaml", WEB)
    await until(lambda: codes(client.diagnostics.get(web)) == ["FP011"])
    fp011 = client.diagnostics[web][0]
    assert (fp011.range.start.line, fp011.range.start.character) == (4, 13)

    open_doc(client, root / "cluster.yaml", CLUSTER)
    change(client, cluster, 2, [edit(11, 0, 11, 0, "      - namespace: web\n")])
    await until(lambda: cleared(client, web), client=client)

    change(client, cluster, 3, [edit(11, 0, 12, 0, "")])
    await until(lambda: codes(client.diagnostics.get(web)) == ["FP011"])
