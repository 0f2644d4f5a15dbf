import path from 'node:path';
import { fileURLToPath } from 'node:url';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const repoRoot = fileURLToPath(new URL('.', import.meta.url));
const webRoot = fileURLToPath(new URL('./web', import.meta.url));
const sharedRoot = fileURLToPath(new URL('./src/shared', import.meta.url));
const apiServer = 'http://127.0.0.1:3000';
// Everything the Express process answers itself; the rest is the SPA.
const proxy = Object.fromEntries(['/api', '/oauth', '/healthz', '/readyz'].map((prefix) => [prefix, { target: apiServer }]));

/**
 * The production build runs on Preact's React compatibility layer (Preact 11: refs are props, as
 * in React 19): the visitor pages must stay ≤ 80 KB gzip (bench P5) and React 19 + react-dom
 * alone weigh ~68 KB. Measured with scripts/measure-bundle.mjs: 98.0 kB gzip with React, 40.2 kB
 * with Preact. The jest web tests map react and react-dom to Preact the same way (jest.config.ts);
 * `vite dev` keeps real React, and the e2e suite runs on this build.
 * `vite build --mode react` builds with real React (to compare, or to rule Preact out of a bug).
 */
const preactAliases = [
  { find: /^react-dom\/client$/, replacement: 'preact/compat/client' },
  { find: /^react-dom$/, replacement: 'preact/compat' },
  { find: /^react\/jsx-runtime$/, replacement: 'preact/compat/jsx-runtime' },
  { find: /^react\/jsx-dev-runtime$/, replacement: 'preact/compat/jsx-dev-runtime' },
  { find: /^react$/, replacement: 'preact/compat' },
];

/**
 * Writes `.vite/chunk-modules.json` ({chunk file: [source modules]}) next to Vite's manifest, so
 * `scripts/measure-bundle.mjs` can prove no staff module is in what a visitor downloads.
 * (dist/web/.vite is a dot-folder: the server's static handler does not serve it.)
 */
function chunkModulesManifest(): Plugin {
  return {
    name: 'gatekeeper:chunk-modules',
    apply: 'build',
    generateBundle(_options, bundle) {
      const chunks: Record<string, string[]> = {};
      for (const output of Object.values(bundle)) {
        if (output.type !== 'chunk') continue;
        chunks[output.fileName] = output.moduleIds
          .map((id) => path.relative(repoRoot, id.replace(/^\0/, '')).split(path.sep).join('/'))
          .sort();
      }
      this.emitFile({ type: 'asset', fileName: '.vite/chunk-modules.json', source: `${JSON.stringify(chunks, null, 2)}\n` });
    },
  };
}

export default defineConfig(({ command, mode }) => {
  const usePreact = command === 'build' && mode !== 'react';
  return {
    root: webRoot,
    plugins: [react(), tailwindcss(), chunkModulesManifest()],
    resolve: {
      alias: [
        { find: /^@\//, replacement: `${webRoot}/src/` },
        { find: /^@shared\//, replacement: `${sharedRoot}/` },
        ...(usePreact ? preactAliases : []),
      ],
    },
    build: {
      // The server serves this folder in `npm start`; keep the path in sync with it.
      outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
      emptyOutDir: true,
      target: 'es2022',
      // terser with two compress passes: the visitor page's entry is 0.45 kB smaller over the wire
      // (brotli) than with the default minifier, which keeps P5 (≤ 45 kB received) met.
      minify: 'terser',
      terserOptions: { compress: { passes: 2 } },
      // .vite/manifest.json: the entry and what it imports, read by scripts/measure-bundle.mjs (P5).
      manifest: true,
      rolldownOptions: {
        onLog(level, log, handler) {
          // react-router reads React.useOptimistic when the runtime has it and falls back otherwise; preact/compat has none.
          if (usePreact && log.code === 'IMPORT_IS_UNDEFINED' && log.message.includes('useOptimistic')) return;
          handler(level, log);
        },
      },
    },
    server: { proxy },
    preview: { proxy },
  };
});
