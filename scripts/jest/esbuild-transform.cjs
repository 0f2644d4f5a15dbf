// Transpiles the server's TypeScript (and the end-to-end tests') for jest with esbuild, one file at a
// time: types are checked by `npm run typecheck`, not here. ts-jest did the same work with the
// TypeScript compiler, which each jest worker had to load (~1 s) and which transpiles far slower; on a
// fresh checkout (CI: an empty jest cache) every worker transpiled the product again. The web project
// keeps ts-jest: its tests hoist jest.mock() calls above their imports, which esbuild does not do.
const crypto = require('node:crypto');
const fs = require('node:fs');
const esbuild = require('esbuild');

const own = crypto.createHash('sha1').update(fs.readFileSync(__filename)).update(esbuild.version).digest('hex');

module.exports = {
  process(source, filename) {
    const { code, map } = esbuild.transformSync(source, {
      loader: filename.endsWith('.tsx') ? 'tsx' : 'ts',
      format: 'cjs',
      target: 'node20',
      sourcefile: filename,
      sourcemap: 'external',
      // the class-field semantics of tsconfig.json's ES2022 target, as tsc compiles the product
      tsconfigRaw: { compilerOptions: { target: 'ES2022', useDefineForClassFields: true, esModuleInterop: true } },
    });
    return { code, map };
  },
  getCacheKey(source, filename) {
    return crypto.createHash('sha1').update(own).update(filename).update(source).digest('hex');
  },
};
