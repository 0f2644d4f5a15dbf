// Rewrites `import("x")` into a require in PGlite's CommonJS build, which jest cannot run otherwise.
// The module's own `require` is captured first: PGlite's emscripten code declares a local `var require`.
module.exports = {
  process(source) {
    const code = source.replace(/\bimport\((["'][^"']+["'])\)/g, 'Promise.resolve().then(() => __gkRequire($1))');
    return { code: `const __gkRequire = require;${code}` };
  },
  getCacheKey(source, filename) {
    return require('node:crypto').createHash('sha1').update('v2').update(filename).update(source).digest('hex');
  },
};
