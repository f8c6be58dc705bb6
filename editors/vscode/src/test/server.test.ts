// The settings reach the real `fplint server` as the extension sends them:
// as initializationOptions, then in workspace/didChangeConfiguration under
// `fplint`. Runs when FPLINT_BIN names the binary (.ci/editors.sh sets it).
import * as assert from "node:assert/strict";
import * as cp from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node";
import { serverSettings } from "../settings";

const CLUSTER = `apiVersion: eksctl.io/v1alpha5
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
`;

// In namespace `web`, which no profile selects: FP011.
const WEB = `apiVersion: apps/v1
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
`;

interface Published {
  uri: string;
  diagnostics: { code?: string | number }[];
}

test("fplint server follows the settings the extension sends", { skip: !process.env.FPLINT_BIN && "FPLINT_BIN is not set" }, async () => {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "fplint-vscode-")));
  fs.writeFileSync(path.join(dir, "cluster.yaml"), CLUSTER);
  fs.writeFileSync(path.join(dir, "web.yaml"), WEB);
  fs.mkdirSync(path.join(dir, "lint"));
  fs.writeFileSync(path.join(dir, "lint", "quiet.toml"), 'ignore = ["FP011"]\n');
  const web = pathToFileURL(path.join(dir, "web.yaml")).href;

  const server = cp.spawn(process.env.FPLINT_BIN as string, ["server"], { stdio: ["pipe", "pipe", "inherit"] });
  const conn = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  const waiting: ((p: Published) => void)[] = [];
  conn.onNotification("textDocument/publishDiagnostics", (p: Published) => {
    if (p.uri === web) {
      waiting.shift()?.(p);
    }
  });
  conn.listen();
  const next = () =>
    new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no diagnostics for web.yaml within 20 s")), 20000);
      waiting.push((p) => {
        clearTimeout(timer);
        resolve(p.diagnostics.map((d) => String(d.code)));
      });
    });
  const change = (values: Record<string, unknown>) =>
    conn.sendNotification("workspace/didChangeConfiguration", {
      settings: { fplint: serverSettings((key) => values[key]) },
    });

  try {
    await conn.sendRequest("initialize", {
      processId: process.pid,
      rootUri: pathToFileURL(dir).href,
      workspaceFolders: [{ uri: pathToFileURL(dir).href, name: "root" }],
      capabilities: {},
      initializationOptions: serverSettings((key) => ({ ignore: ["FP011"] })[key]),
    });
    await conn.sendNotification("initialized", {});
    let published = next();
    await conn.sendNotification("textDocument/didOpen", {
      textDocument: { uri: web, languageId: "yaml", version: 1, text: WEB },
    });
    assert.deepEqual(await published, [], "fplint.ignore from the start");

    published = next();
    await change({});
    assert.deepEqual(await published, ["FP011"], "every setting cleared");

    published = next();
    await change({ select: ["FP001"] });
    assert.deepEqual(await published, [], "fplint.select");

    published = next();
    await change({ select: [] });
    assert.deepEqual(await published, ["FP011"], "an empty fplint.select runs every rule");

    published = next();
    await change({ config: "lint/quiet.toml" });
    assert.deepEqual(await published, [], "fplint.config, relative to the folder");

    await conn.sendRequest("shutdown");
    await conn.sendNotification("exit");
    const code = await new Promise((resolve) => server.on("exit", resolve));
    assert.equal(code, 0);
  } finally {
    conn.dispose();
    server.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
