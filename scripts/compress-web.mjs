// Writes a brotli (.br) and a gzip (.gz) copy beside every file of the built web app, so
// the server can send the smallest one a browser accepts without compressing per request.
// A copy that would not be smaller (images already compressed) is not written.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const COMPRESSED = /\.(br|gz)$/;

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    // dot folders (Vite's manifest) are build metadata, never served
    if (entry.name.startsWith('.')) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

/** Compresses every servable file under `dir`; returns how many copies it wrote. */
export function compressWeb(dir) {
  let written = 0;
  for (const file of files(dir)) {
    if (COMPRESSED.test(file)) continue;
    const data = fs.readFileSync(file);
    const copies = [
      [
        '.br',
        zlib.brotliCompressSync(data, {
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length },
        }),
      ],
      ['.gz', zlib.gzipSync(data, { level: 9 })],
    ];
    for (const [ext, compressed] of copies) {
      if (compressed.length < data.length) {
        fs.writeFileSync(file + ext, compressed);
        written++;
      } else {
        fs.rmSync(file + ext, { force: true });
      }
    }
  }
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = path.resolve(process.argv[2] ?? 'dist/web');
  process.stdout.write(`gatekeeper: ${compressWeb(dir)} compressed copies in ${dir}\n`);
}
