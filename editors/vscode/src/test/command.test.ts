import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import { resolveExecutable, serverCommand } from "../command";

function folderWith(files: Record<string, number>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fplint-vscode-"));
  for (const [name, mode] of Object.entries(files)) {
    const file = path.join(dir, name);
    fs.writeFileSync(file, "#!/bin/sh\n");
    fs.chmodSync(file, mode);
  }
  return dir;
}

test("a bare name is found on PATH, in PATH order", () => {
  const first = folderWith({ fplint: 0o755 });
  const second = folderWith({ fplint: 0o755 });
  const env = { PATH: ["", first, second].join(":") };
  assert.equal(resolveExecutable("fplint", env, "linux"), path.join(first, "fplint"));
});

test("a file on PATH that is not executable is skipped", () => {
  const plain = folderWith({ fplint: 0o644 });
  const exec = folderWith({ fplint: 0o755 });
  const env = { PATH: [plain, exec].join(":") };
  assert.equal(resolveExecutable("fplint", env, "linux"), path.join(exec, "fplint"));
});

test("a name that is nowhere on PATH is not found", () => {
  const empty = folderWith({});
  assert.equal(resolveExecutable("fplint", { PATH: empty }, "linux"), undefined);
});

test("an empty setting means fplint", () => {
  const dir = folderWith({ fplint: 0o755 });
  assert.equal(resolveExecutable("  ", { PATH: dir }, "linux"), path.join(dir, "fplint"));
});

test("a path is used as it is, and ~ is the home folder", () => {
  const dir = folderWith({ "my-fplint": 0o755 });
  const file = path.join(dir, "my-fplint");
  assert.equal(resolveExecutable(file, { PATH: "" }, "linux"), file);
  assert.equal(resolveExecutable("~/my-fplint", { PATH: "", HOME: dir }, "linux"), file);
  assert.equal(resolveExecutable(path.join(dir, "missing"), { PATH: dir }, "linux"), undefined);
});

test("Windows looks up PATHEXT extensions", () => {
  // The files need no mode on Windows; the lookup is what is tested.
  const dir = folderWith({ "fplint.EXE": 0o644 });
  const env = { PATH: dir, PATHEXT: ".COM;.EXE" };
  assert.equal(resolveExecutable("fplint", env, "win32"), path.join(dir, "fplint.EXE"));
});

test("the server starts with `server` unless fplint.args says otherwise", () => {
  const dir = folderWith({ fplint: 0o755 });
  const exe = path.join(dir, "fplint");
  assert.deepEqual(serverCommand(undefined, undefined, { PATH: dir }, "linux"), {
    command: exe,
    args: ["server"],
  });
  assert.deepEqual(serverCommand("fplint", ["server", "--verbose"], { PATH: dir }, "linux"), {
    command: exe,
    args: ["server", "--verbose"],
  });
  // A malformed setting falls back to the default rather than passing junk.
  assert.deepEqual(serverCommand("fplint", ["server", 3], { PATH: dir }, "linux"), {
    command: exe,
    args: ["server"],
  });
});

test("a missing executable is a message that names the setting", () => {
  const message = serverCommand("/nowhere/fplint", undefined, { PATH: "" }, "linux");
  assert.equal(typeof message, "string");
  assert.match(message as string, /fplint\.path is "\/nowhere\/fplint"/);
});

test("the client library resolves as the extension host loads it", () => {
  // extension.ts imports the `node` export; a typo or a package that drops
  // it would otherwise show only when VS Code activates the extension.
  assert.match(require.resolve("vscode-languageclient/node"), /vscode-languageclient[\\/]lib[\\/]node[\\/]main\.js$/);
});
