import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response, type Router } from 'express';
import { chooseEncoding, type StoredEncoding } from './accept-encoding';

const SUFFIX: Record<StoredEncoding, string> = { br: '.br', gzip: '.gz' };
/** Vite names built files `assets/<name>-<content hash>.<ext>`: their content never changes under that name. */
const HASHED = /^assets\/[^/]+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The stored compressed copies of a file (written by the build, scripts/compress-web.mjs). */
function storedEncodings(file: string): Set<StoredEncoding> {
  return new Set((Object.keys(SUFFIX) as StoredEncoding[]).filter((coding) => fs.existsSync(file + SUFFIX[coding])));
}

/**
 * Sends a built file, or the smallest compressed copy the browser accepts, with the
 * original's Content-Type. `send` answers HEAD, ranges (of the copy sent), ETag and
 * Content-Length; Vary tells caches the body depends on Accept-Encoding.
 */
function sendBuilt(req: Request, res: Response, file: string, cacheControl: string, next: (error?: unknown) => void): void {
  const encoding = chooseEncoding(req.get('accept-encoding'), storedEncodings(file));
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('Cache-Control', cacheControl);
  res.type(path.extname(file));
  if (encoding) res.setHeader('Content-Encoding', encoding);
  res.sendFile(encoding ? file + SUFFIX[encoding] : file, { cacheControl: false, dotfiles: 'deny' }, (error) => {
    if (error && !res.headersSent) next(error);
  });
}

/**
 * Whether `file` is a regular file. A name the filesystem cannot hold (a segment over 255
 * bytes: ENAMETOOLONG) or a path through a file (`/index.html/x`: ENOTDIR) is no file,
 * the same as one that does not exist: the app's own 404, never an error.
 */
function isFile(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isFile() ?? false;
  } catch {
    return false;
  }
}

/** Serves the built React app; every non-API path gets index.html and the SPA routes it (404 card included). */
export function spaRouter(webDist: string): Router {
  const router = express.Router();
  const root = path.resolve(webDist);
  const indexFile = path.join(root, 'index.html');
  router.get(/.*/, (req, res, next) => {
    let relative: string;
    try {
      relative = path.posix.normalize(decodeURIComponent(req.path)).replace(/^\/+/, '');
    } catch {
      relative = '';
    }
    const file = path.resolve(root, relative);
    const servable =
      relative !== '' &&
      !relative.split('/').some((part) => part.startsWith('.')) &&
      file.startsWith(root + path.sep) &&
      !/\.(br|gz)$/.test(file);
    if (servable && isFile(file)) {
      sendBuilt(req, res, file, HASHED.test(relative) ? IMMUTABLE : 'public, max-age=3600', next);
      return;
    }
    if (!fs.existsSync(indexFile)) {
      res.status(503).type('text').send('The web app is not built yet: run `npm run build`.');
      return;
    }
    sendBuilt(req, res, indexFile, 'no-cache', next);
  });
  return router;
}
