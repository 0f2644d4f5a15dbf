import express, { type Router } from 'express';

export interface PublicConfig {
  dataRetentionDays: number;
  sandbox: boolean;
  /** origin of the in-process Discord emulator, in sandbox mode */
  sandboxDiscordUrl?: string;
  /** the Discord server the visitor is joining (absent until Discord has told us) */
  server?: { name: string; iconUrl: string | null };
}

/** GET /api/config: what the visitor pages need to know about this server. */
export function configRouter(config: () => PublicConfig | Promise<PublicConfig>): Router {
  const router = express.Router();
  router.get('/config', async (_req, res) => {
    res.json(await config());
  });
  return router;
}
