import fs from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';

/** Serves the built React app; every non-API path gets index.html and the SPA routes it (404 card included). */
export function spaRouter(webDist: string): Router {
  const router = express.Router();
  const indexFile = path.join(webDist, 'index.html');
  router.use(express.static(webDist, { index: false, maxAge: '1h', setHeaders: (res, file) => {
    if (file.includes(`${path.sep}assets${path.sep}`)) res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
  } }));
  router.get(/.*/, (_req, res) => {
    if (!fs.existsSync(indexFile)) {
      res.status(503).type('text').send('The web app is not built yet: run `npm run build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(indexFile);
  });
  return router;
}
