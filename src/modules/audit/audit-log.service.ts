import type { Database } from '../../db/client';
import { listAudit, verifyAuditChain, type AuditQuery } from './audit.repository';

/** The audit log as super admins read it: one page, newest first, with the hash chain's verdict. */
export function createAuditLogService(deps: { database: Database }) {
  async function page(query: AuditQuery) {
    const { db } = deps.database;
    const [found, chain] = await Promise.all([listAudit(db, query), verifyAuditChain(db)]);
    return { entries: found.entries, nextCursor: found.nextCursor, chain };
  }
  return { page };
}

export type AuditLogService = ReturnType<typeof createAuditLogService>;
