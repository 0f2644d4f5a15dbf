// Integration files that have PostgreSQL parts, for the `integration-postgres` jest project
// (src/test-support/engine-pass.ts explains the two passes). A file has such parts when it uses one
// of the engine-pass helpers; the others (no database server at all) run in the PGlite pass only.
const fs = require('node:fs');
const path = require('node:path');

const MARKERS = /\b(describeEngines|testEngines|describeOn|itOn|postgresTestUrl)\(/;
const INTEGRATION_FILE = /\.(int|process)\.test\.ts$/;

function walk(folder, found) {
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) walk(full, found);
    else if (INTEGRATION_FILE.test(entry.name)) found.push(full);
  }
  return found;
}

/** Path patterns (for testPathIgnorePatterns) of the integration files with no PostgreSQL part. */
function pgliteOnlyFiles(rootDir, roots) {
  const files = roots.flatMap((root) => walk(path.join(rootDir, root), []));
  return files
    .filter((file) => !MARKERS.test(fs.readFileSync(file, 'utf8')))
    .map((file) => `${path.relative(rootDir, file).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
}

module.exports = { pgliteOnlyFiles };
