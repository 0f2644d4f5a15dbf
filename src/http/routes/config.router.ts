import express, { type Router } from 'express';

export interface PublicConfig {
  dataRetentionDays: number;
  sandbox: boolean;
  /** origin of the in-process Discord emulator, in sandbox mode */
  sandboxDiscordUrl?: string;
}

/** GET /api/config: what the visitor pages need to know about this server. */
export function configRouter(config: () => PublicConfig): Router {
  const router = express.Router();
  router.get('/config', (_req, res) => {
    res.json(config());
  });
  return router;
}
