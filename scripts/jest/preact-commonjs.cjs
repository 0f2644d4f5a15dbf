// The web tests render on Preact's React compatibility layer, as the production build does.
// Preact ships its modules as .mjs only, and jest (on Node < 24.9) cannot require an .mjs
// file even after transforming it: this writes CommonJS copies of the Preact entry points
// once per Preact version, and returns the moduleNameMapper that sends react, react-dom and
// preact to them. Each copy keeps its `require('preact…')` calls, which map back to these
// copies, so every importer shares one Preact instance (hooks need that).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ENTRIES = {
  preact: 'dist/preact.mjs',
  'preact/hooks': 'hooks/dist/hooks.mjs',
  'preact/compat': 'compat/dist/compat.mjs',
  'preact/test-utils': 'test-utils/dist/testUtils.mjs',
  'preact/jsx-runtime': 'jsx-runtime/dist/jsxRuntime.mjs',
};

function preactModuleNameMapper(rootDir) {
  const preactDir = path.dirname(require.resolve('preact/package.json', { paths: [rootDir] }));
  const { version } = JSON.parse(fs.readFileSync(path.join(preactDir, 'package.json'), 'utf8'));
  const outDir = path.join(os.tmpdir(), `gatekeeper-jest-preact-${version}`);
  const copyOf = (name) => path.join(outDir, `${name.replace('/', '-')}.cjs`);
  const missing = Object.keys(ENTRIES).filter((name) => !fs.existsSync(copyOf(name)));
  if (missing.length > 0) {
    const esbuild = require(require.resolve('esbuild', { paths: [rootDir] }));
    fs.mkdirSync(outDir, { recursive: true });
    for (const name of missing) {
      const source = fs.readFileSync(path.join(preactDir, ENTRIES[name]), 'utf8');
      const { code } = esbuild.transformSync(source, { format: 'cjs', target: 'es2022', loader: 'js' });
      // written aside and renamed, so a parallel jest never reads half a file
      const temp = `${copyOf(name)}.${process.pid}.tmp`;
      fs.writeFileSync(temp, code);
      fs.renameSync(temp, copyOf(name));
    }
  }
  return {
    '^react-dom/test-utils$': copyOf('preact/test-utils'),
    '^react-dom/client$': path.join(preactDir, 'compat/client.js'),
    '^react-dom$': copyOf('preact/compat'),
    '^react/jsx-runtime$': path.join(preactDir, 'compat/jsx-runtime.js'),
    '^react/jsx-dev-runtime$': path.join(preactDir, 'compat/jsx-dev-runtime.js'),
    '^react$': copyOf('preact/compat'),
    ...Object.fromEntries(Object.keys(ENTRIES).map((name) => [`^${name}$`, copyOf(name)])),
  };
}

module.exports = { preactModuleNameMapper };
