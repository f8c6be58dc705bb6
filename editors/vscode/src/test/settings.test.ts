import * as assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { serverSettingKeys, serverSettings } from "../settings";

function from(values: Record<string, unknown>) {
  return (key: string) => values[key];
}

test("unset settings are the server's defaults, every key present", () => {
  assert.deepEqual(serverSettings(from({})), { config: "", select: [], ignore: [] });
});

test("config, select and ignore are passed through", () => {
  assert.deepEqual(
    serverSettings(from({ config: "infra/fplint.toml", select: ["FP00"], ignore: ["FP011", "FP012"] })),
    { config: "infra/fplint.toml", select: ["FP00"], ignore: ["FP011", "FP012"] },
  );
});

test("~ in the config path is the home folder", () => {
  assert.equal(serverSettings(from({ config: "~/lint/fplint.toml" }), "/home/me").config, "/home/me/lint/fplint.toml");
  // Only a leading ~ is the home folder.
  assert.equal(serverSettings(from({ config: "a/~/b.toml" }), "/home/me").config, "a/~/b.toml");
});

test("values of the wrong type do not reach the server", () => {
  assert.deepEqual(serverSettings(from({ config: 3, select: "FP001", ignore: ["FP011", 7, " "] })), {
    config: "",
    select: [],
    ignore: ["FP011"],
  });
});

test("package.json declares each setting the server is sent, with an unset default", () => {
  const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "package.json"), "utf8"));
  const properties = manifest.contributes.configuration.properties;
  const defaults: Record<string, unknown> = {};
  for (const key of serverSettingKeys) {
    const property = properties[`fplint.${key}`];
    assert.ok(property, `fplint.${key} is not declared`);
    assert.equal(property.type, key === "config" ? "string" : "array");
    defaults[key] = property.default;
  }
  assert.deepEqual(serverSettings(from(defaults)), { config: "", select: [], ignore: [] });
});
